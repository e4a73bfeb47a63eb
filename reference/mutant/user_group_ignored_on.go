//go:build mutant_user_group_ignored

package mutant

// UserGroupIgnored is true in the mutant build mutant_user_group_ignored: the group of an image User USER:GROUP is ignored: the process runs with the user's primary group from /etc/passwd, root's when the image has none (breaks IMG-011).
const UserGroupIgnored = true
