#ifndef CSYSTEM_H
#define CSYSTEM_H
/*
 * Thin wrappers over Linux calls that Swift's Glibc module does not expose (they need _GNU_SOURCE or
 * newer kernel headers than glibc ships). No logic lives here: each function is one system call, returns
 * what the call returns (-1 with errno set on failure) and copies results into plain C structs.
 * Constants are exported as `extern const` values so Swift sees the real values from the system headers.
 */
#include <stdint.h>
#include <stddef.h>

/* The subset of `struct statx` the Bookmarks library uses. */
typedef struct {
    uint32_t mask;          /* which fields the kernel filled (STATX_*) */
    uint32_t mode;
    uint32_t nlink;
    uint32_t uid;
    uint32_t gid;
    uint64_t ino;
    uint64_t size;
    int64_t  btime_sec;
    uint32_t btime_nsec;
    int64_t  mtime_sec;
    uint32_t mtime_nsec;
    uint32_t dev_major;
    uint32_t dev_minor;
    uint64_t mnt_id;        /* valid when mask has STATX_MNT_ID */
    uint64_t attributes;
} csystem_statx_t;

/* statx(2). */
int csystem_statx(int dirfd, const char *path, int flags, uint32_t mask, csystem_statx_t *out);

/* name_to_handle_at(2): writes up to `capacity` handle bytes to `bytes`, their count to `*length`,
   the handle type to `*type` and the (legacy) mount id to `*mount_id`. */
int csystem_name_to_handle_at(int dirfd, const char *path, int flags,
                              uint8_t *bytes, uint32_t capacity,
                              uint32_t *length, int32_t *type, int32_t *mount_id);

/* open_by_handle_at(2) with a handle rebuilt from bytes and type. */
int csystem_open_by_handle_at(int mount_fd, const uint8_t *bytes, uint32_t length, int32_t type, int flags);

/* ioctl(fd, FS_IOC_GETVERSION): the inode generation. */
int csystem_get_inode_version(int fd, uint64_t *version);

/* ioctl(fd, FS_IOC_GETFSUUID): up to 16 bytes of filesystem UUID; `*length` gets the count. */
int csystem_get_fs_uuid(int fd, uint8_t *uuid16, uint8_t *length);

/* ioctl(fd, BTRFS_IOC_FS_INFO): the 16-byte fsid of the btrfs filesystem holding fd (what blkid calls its UUID;
   btrfs does not answer FS_IOC_GETFSUUID). */
int csystem_get_btrfs_fsid(int fd, uint8_t *uuid16);

/* fstatfs(2): type magic, f_fsid words, block size and block count. */
int csystem_fstatfs(int fd, int64_t *type, int32_t *fsid0, int32_t *fsid1, uint64_t *block_size, uint64_t *blocks);

/* statfs(2) on a path: the same fields as csystem_fstatfs. */
int csystem_statfs(const char *path, int64_t *type, int32_t *fsid0, int32_t *fsid1, uint64_t *block_size, uint64_t *blocks);

/* statmount(2) (Linux 6.8+): fills `buffer` with a `struct statmount` for the unique mount id (from statx
   STATX_MNT_ID_UNIQUE). Returns -1 with ENOSYS on older kernels. */
int csystem_statmount(uint64_t unique_mount_id, uint64_t mask, void *buffer, size_t size);

/* One directory entry from readdir(3): inode, d_type and a pointer to the NUL-terminated name
   (valid until the next call). Returns 1 for an entry, 0 at the end, -1 on error (errno set). */
int csystem_readdir(void *dir, uint64_t *ino, uint8_t *type, const char **name);

/* Open a directory stream from a descriptor (fdopendir(3)); the stream owns the fd. */
void *csystem_fdopendir(int fd);
int csystem_closedir(void *dir);

/* openat(2) with an explicit mode (Swift cannot call the variadic form on every toolchain). */
int csystem_openat(int dirfd, const char *path, int flags, uint32_t mode);

/* Constants from the system headers (with the kernel ABI values where old headers lack them). */
extern const int CSYSTEM_AT_FDCWD;
extern const int CSYSTEM_AT_SYMLINK_NOFOLLOW;
extern const int CSYSTEM_AT_EMPTY_PATH;
extern const int CSYSTEM_AT_HANDLE_FID;
extern const int CSYSTEM_AT_STATX_DONT_SYNC;
extern const int CSYSTEM_O_PATH;
extern const int CSYSTEM_O_NOFOLLOW;
extern const int CSYSTEM_O_DIRECTORY;
extern const int CSYSTEM_O_CLOEXEC;
extern const int CSYSTEM_O_RDONLY;
extern const uint32_t CSYSTEM_STATX_BASIC_STATS;
extern const uint32_t CSYSTEM_STATX_BTIME;
extern const uint32_t CSYSTEM_STATX_MNT_ID;
extern const uint32_t CSYSTEM_STATX_MNT_ID_UNIQUE;
extern const uint32_t CSYSTEM_MAX_HANDLE_SZ;
extern const uint8_t CSYSTEM_DT_DIR;
extern const uint8_t CSYSTEM_DT_REG;
extern const uint8_t CSYSTEM_DT_LNK;
extern const uint8_t CSYSTEM_DT_UNKNOWN;

#endif
