/*
 * glibcprobe: the conformance suite's real-glibc workload (SEC-010 to SEC-013). The suite
 * builds it with the host's gcc (`gcc -static -pthread`), so it makes its system calls through
 * glibc exactly as a program built on the same distribution does: pthread_create through
 * clone3 with the fallback to clone on ENOSYS only, faccessat through faccessat2, and so on.
 *
 *   glibcprobe threads            create and join threads with pthread_create (SEC-010)
 *   glibcprobe privdrop USER DIR  as root: make DIR, chown it to USER, drop to USER (setgroups,
 *                                 setgid, setuid, resolved from the image's /etc/passwd and
 *                                 /etc/group), write a file there it owns, chown it (SEC-011)
 *   glibcprobe unknown-syscall    a system call number no kernel assigns fails with ENOSYS (SEC-012)
 *   glibcprobe newer-syscalls     clone3, faccessat2, close_range and openat2 work or fail with
 *                                 ENOSYS (SEC-013)
 *
 * Each prints one line per check ("ok ..." or "FAIL ...") and exits 0 only if every check of
 * the mode passed; 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif

/* System call numbers no kernel assigns: 1000 lies above every table (the highest are below
 * 500), so a runtime whose seccomp library does not know it may answer it without consulting
 * the profile (runc returns ENOSYS for numbers above the newest its libseccomp knows); 400 lies
 * in the gap that x86_64 and the asm-generic table (arm64, riscv64) leave between rseq and
 * pidfd_send_signal (424), below that newest number, so only the profile's default answers it. */
#define UNASSIGNED_ABOVE 1000
#if defined(__x86_64__) || defined(__aarch64__) || (defined(__riscv) && __riscv_xlen == 64)
#define UNASSIGNED_GAP 400
#endif

static int failures;

/* CHECK evaluates the call, then reads errno: never in one argument list (the order of
 * evaluation of a call's arguments is unspecified). */
#define CHECK(cond, what)                          \
	do {                                       \
		errno = 0;                         \
		int ok_ = (cond);                  \
		check(ok_, (what), ok_ ? 0 : errno); \
	} while (0)

/* check reports one check; callers pass errno read after the call they check (CHECK does). */
static void check(int ok, const char *what, int err)
{
	if (ok) {
		printf("ok %s\n", what);
	} else {
		printf("FAIL %s: %s (errno %d %s)\n", what, strerrorname_np(err) ? strerrorname_np(err) : "?", err, strerror(err));
		failures++;
	}
	fflush(stdout);
}

/* A system call that is allowed, or refused the way glibc falls back from: anything but an
 * error other than ENOSYS. */
static void allowed_or_enosys(const char *what, long rc, int err)
{
	char line[160];
	if (rc >= 0) {
		snprintf(line, sizeof line, "%s: works", what);
		check(1, line, 0);
	} else if (err == ENOSYS) {
		snprintf(line, sizeof line, "%s: ENOSYS (the C library falls back)", what);
		check(1, line, 0);
	} else {
		snprintf(line, sizeof line, "%s fails with an error other than ENOSYS", what);
		check(0, line, err);
	}
}

static void *worker(void *arg)
{
	int *slot = arg;
	*slot = 1;
	return NULL;
}

static int threads(void)
{
	enum { N = 8 };
	pthread_t t[N];
	int done[N] = {0};
	int started = 0;
	for (int i = 0; i < N; i++) {
		int rc = pthread_create(&t[i], NULL, worker, &done[i]);
		if (rc != 0) {
			check(0, "pthread_create", rc);
			break;
		}
		started++;
	}
	for (int i = 0; i < started; i++) {
		int rc = pthread_join(t[i], NULL);
		if (rc != 0)
			check(0, "pthread_join", rc);
	}
	int ran = 0;
	for (int i = 0; i < N; i++)
		ran += done[i];
	char line[80];
	snprintf(line, sizeof line, "%d of %d threads created, ran and joined", ran, N);
	check(ran == N, line, ran == N ? 0 : EAGAIN);
	return failures ? 1 : 0;
}

/* lookup_user reads the image's /etc/passwd and /etc/group directly (fgetpwent, fgetgrent: no
 * NSS, which a static binary cannot load) for name's uid, primary gid and the groups that list it. */
static int lookup_user(const char *name, uid_t *uid, gid_t *gid, gid_t *groups, int *ngroups)
{
	FILE *f = fopen("/etc/passwd", "r");
	if (!f) {
		check(0, "open /etc/passwd", errno);
		return -1;
	}
	struct passwd *pw;
	int found = 0;
	while ((pw = fgetpwent(f)) != NULL) {
		if (strcmp(pw->pw_name, name) == 0) {
			*uid = pw->pw_uid;
			*gid = pw->pw_gid;
			found = 1;
			break;
		}
	}
	fclose(f);
	if (!found) {
		check(0, "user in /etc/passwd", ENOENT);
		return -1;
	}
	int n = 0;
	groups[n++] = *gid;
	f = fopen("/etc/group", "r");
	if (f) {
		struct group *gr;
		while ((gr = fgetgrent(f)) != NULL && n < 32) {
			for (char **m = gr->gr_mem; *m; m++)
				if (strcmp(*m, name) == 0 && gr->gr_gid != *gid)
					groups[n++] = gr->gr_gid;
		}
		fclose(f);
	}
	*ngroups = n;
	return 0;
}

static int privdrop(const char *user, const char *dir)
{
	uid_t uid;
	gid_t gid;
	gid_t groups[32];
	int ngroups;
	char line[1024];
	if (getuid() != 0) {
		check(0, "starts as root", EPERM);
		return 1;
	}
	if (lookup_user(user, &uid, &gid, groups, &ngroups) != 0)
		return 1;
	snprintf(line, sizeof line, "mkdir %s as root", dir);
	CHECK(mkdir(dir, 0750) == 0 || errno == EEXIST, line);
	snprintf(line, sizeof line, "chown %s to %u:%u as root", dir, uid, gid);
	CHECK(chown(dir, uid, gid) == 0, line);
	snprintf(line, sizeof line, "setgroups to %d group(s) of %s", ngroups, user);
	CHECK(setgroups(ngroups, groups) == 0, line);
	snprintf(line, sizeof line, "setgid(%u)", gid);
	CHECK(setgid(gid) == 0, line);
	snprintf(line, sizeof line, "setuid(%u)", uid);
	CHECK(setuid(uid) == 0, line);
	if (failures)
		return 1;
	check(getuid() == uid && geteuid() == uid && getgid() == gid && getegid() == gid,
	      "runs as the user and group now", EPERM);
	errno = 0;
	check(setuid(0) != 0 && errno == EPERM, "cannot become root again", errno ? errno : EINVAL);

	char file[512];
	snprintf(file, sizeof file, "%s/owned", dir);
	int fd;
	unlink(file); /* a file left by an earlier run keeps its owner: start afresh */
	snprintf(line, sizeof line, "create %s as %s", file, user);
	CHECK((fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0640)) >= 0, line);
	if (fd < 0)
		return 1;
	const char msg[] = "written by the unprivileged user\n";
	CHECK(write(fd, msg, sizeof msg - 1) == (ssize_t)(sizeof msg - 1), "write it");
	close(fd);
	struct stat st;
	CHECK(stat(file, &st) == 0 && st.st_uid == uid && st.st_gid == gid, "the file belongs to the user");
	/* An owner may give its file to a group it belongs to (no capability needed). */
	gid_t other = ngroups > 1 ? groups[1] : gid;
	snprintf(line, sizeof line, "chown the file to group %u as its owner", other);
	CHECK(chown(file, (uid_t)-1, other) == 0, line);
	return failures ? 1 : 0;
}

static void enosys(long nr)
{
	errno = 0;
	long rc = syscall(nr, 0, 0, 0);
	int err = errno;
	char line[80];
	snprintf(line, sizeof line, "system call %ld (unassigned) fails with ENOSYS", nr);
	check(rc == -1 && err == ENOSYS, line, rc == -1 ? err : 0);
}

static int unknown_syscall(void)
{
#ifdef UNASSIGNED_GAP
	enosys(UNASSIGNED_GAP);
#else
	printf("FAIL no unassigned system call number below the newest is known for this architecture\n");
	failures++;
#endif
	enosys(UNASSIGNED_ABOVE);
	return failures ? 1 : 0;
}

struct open_how_v0 {
	unsigned long long flags, mode, resolve;
};

static int newer_syscalls(void)
{
	long rc;
	/* clone3 with no arguments: the kernel refuses the size with EINVAL, so anything but
	 * EINVAL or ENOSYS is the runtime's filter. */
	errno = 0;
	rc = syscall(SYS_clone3, NULL, 0);
	if (rc < 0 && errno == EINVAL)
		rc = 0;
	allowed_or_enosys("clone3", rc, errno);
	errno = 0;
	rc = syscall(SYS_faccessat2, AT_FDCWD, "/", R_OK, AT_EACCESS);
	allowed_or_enosys("faccessat2", rc, errno);
	errno = 0;
	rc = faccessat(AT_FDCWD, "/", R_OK, AT_EACCESS);
	allowed_or_enosys("faccessat(AT_EACCESS) through glibc", rc, errno);
	int fd = open("/", O_RDONLY | O_DIRECTORY);
	errno = 0;
	rc = syscall(SYS_close_range, fd, fd, 0);
	allowed_or_enosys("close_range", rc, errno);
	struct open_how_v0 how = {.flags = O_RDONLY | O_DIRECTORY};
	errno = 0;
	rc = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how);
	allowed_or_enosys("openat2", rc, errno);
	if (rc >= 0)
		close((int)rc);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "threads") == 0)
		return threads();
	if (argc == 4 && strcmp(argv[1], "privdrop") == 0)
		return privdrop(argv[2], argv[3]);
	if (argc == 2 && strcmp(argv[1], "unknown-syscall") == 0)
		return unknown_syscall();
	if (argc == 2 && strcmp(argv[1], "newer-syscalls") == 0)
		return newer_syscalls();
	fprintf(stderr, "usage: glibcprobe threads | privdrop USER DIR | unknown-syscall | newer-syscalls\n");
	return 2;
}
