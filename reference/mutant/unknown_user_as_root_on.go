//go:build mutant_unknown_user_as_root

package mutant

// UnknownUserAsRoot is true in the mutant build mutant_unknown_user_as_root: an image User that names a user or group the image does not define runs the container as root instead of failing its start (breaks IMG-012).
const UnknownUserAsRoot = true
