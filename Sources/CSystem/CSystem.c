#define _GNU_SOURCE
#include "CSystem.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/btrfs.h>

/* Kernel ABI values for headers older than the running kernel; the kernel rejects what it lacks (EINVAL). */
#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200
#endif
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif
#ifndef SYS_statmount
#define SYS_statmount 457   /* the same number on every architecture (unified syscall table) */
#endif
#ifndef MAX_HANDLE_SZ
#define MAX_HANDLE_SZ 128
#endif
#ifndef FS_IOC_GETFSUUID
struct csystem_fsuuid2 { uint8_t len; uint8_t uuid[16]; };
#define FS_IOC_GETFSUUID _IOR(0x15, 0, struct csystem_fsuuid2)
#define CSYSTEM_FSUUID_T struct csystem_fsuuid2
#else
#define CSYSTEM_FSUUID_T struct fsuuid2
#endif

const int CSYSTEM_AT_FDCWD = AT_FDCWD;
const int CSYSTEM_AT_SYMLINK_NOFOLLOW = AT_SYMLINK_NOFOLLOW;
const int CSYSTEM_AT_EMPTY_PATH = AT_EMPTY_PATH;
const int CSYSTEM_AT_HANDLE_FID = AT_HANDLE_FID;
const int CSYSTEM_AT_STATX_DONT_SYNC = AT_STATX_DONT_SYNC;
const int CSYSTEM_O_PATH = O_PATH;
const int CSYSTEM_O_NOFOLLOW = O_NOFOLLOW;
const int CSYSTEM_O_DIRECTORY = O_DIRECTORY;
const int CSYSTEM_O_CLOEXEC = O_CLOEXEC;
const int CSYSTEM_O_RDONLY = O_RDONLY;
const uint32_t CSYSTEM_STATX_BASIC_STATS = STATX_BASIC_STATS;
const uint32_t CSYSTEM_STATX_BTIME = STATX_BTIME;
const uint32_t CSYSTEM_STATX_MNT_ID = STATX_MNT_ID;
const uint32_t CSYSTEM_STATX_MNT_ID_UNIQUE = STATX_MNT_ID_UNIQUE;
const uint32_t CSYSTEM_MAX_HANDLE_SZ = MAX_HANDLE_SZ;
const uint8_t CSYSTEM_DT_DIR = DT_DIR;
const uint8_t CSYSTEM_DT_REG = DT_REG;
const uint8_t CSYSTEM_DT_LNK = DT_LNK;
const uint8_t CSYSTEM_DT_UNKNOWN = DT_UNKNOWN;

int csystem_statx(int dirfd, const char *path, int flags, uint32_t mask, csystem_statx_t *out) {
    struct statx sx;
    memset(&sx, 0, sizeof sx);
    int rc = statx(dirfd, path, flags, mask, &sx);
    if (rc != 0) return rc;
    out->mask = sx.stx_mask;
    out->mode = sx.stx_mode;
    out->nlink = sx.stx_nlink;
    out->uid = sx.stx_uid;
    out->gid = sx.stx_gid;
    out->ino = sx.stx_ino;
    out->size = sx.stx_size;
    out->btime_sec = sx.stx_btime.tv_sec;
    out->btime_nsec = sx.stx_btime.tv_nsec;
    out->mtime_sec = sx.stx_mtime.tv_sec;
    out->mtime_nsec = sx.stx_mtime.tv_nsec;
    out->dev_major = sx.stx_dev_major;
    out->dev_minor = sx.stx_dev_minor;
    out->mnt_id = sx.stx_mnt_id;
    out->attributes = sx.stx_attributes;
    return 0;
}

int csystem_name_to_handle_at(int dirfd, const char *path, int flags,
                              uint8_t *bytes, uint32_t capacity,
                              uint32_t *length, int32_t *type, int32_t *mount_id) {
    union { struct file_handle fh; char space[sizeof(struct file_handle) + MAX_HANDLE_SZ]; } h;
    h.fh.handle_bytes = MAX_HANDLE_SZ;
    int mnt = 0;
    int rc = name_to_handle_at(dirfd, path, &h.fh, &mnt, flags);
    if (rc != 0) return rc;
    if (h.fh.handle_bytes > capacity) { errno = EOVERFLOW; return -1; }
    memcpy(bytes, h.fh.f_handle, h.fh.handle_bytes);
    *length = h.fh.handle_bytes;
    *type = h.fh.handle_type;
    *mount_id = mnt;
    return 0;
}

int csystem_open_by_handle_at(int mount_fd, const uint8_t *bytes, uint32_t length, int32_t type, int flags) {
    if (length > MAX_HANDLE_SZ) { errno = EINVAL; return -1; }
    union { struct file_handle fh; char space[sizeof(struct file_handle) + MAX_HANDLE_SZ]; } h;
    h.fh.handle_bytes = length;
    h.fh.handle_type = type;
    memcpy(h.fh.f_handle, bytes, length);
    return open_by_handle_at(mount_fd, &h.fh, flags);
}

int csystem_get_inode_version(int fd, uint64_t *version) {
    long v = 0;
    int rc = ioctl(fd, FS_IOC_GETVERSION, &v);
    if (rc != 0) return rc;
    *version = (uint64_t)(unsigned long)v;
    return 0;
}

int csystem_get_fs_uuid(int fd, uint8_t *uuid16, uint8_t *length) {
    CSYSTEM_FSUUID_T u;
    memset(&u, 0, sizeof u);
    u.len = 16;
    int rc = ioctl(fd, FS_IOC_GETFSUUID, &u);
    if (rc != 0) return rc;
    uint8_t n = u.len > 16 ? 16 : u.len;
    memcpy(uuid16, u.uuid, n);
    *length = n;
    return 0;
}

int csystem_get_btrfs_fsid(int fd, uint8_t *uuid16) {
    struct btrfs_ioctl_fs_info_args args;
    memset(&args, 0, sizeof args);
    int rc = ioctl(fd, BTRFS_IOC_FS_INFO, &args);
    if (rc != 0) return rc;
    memcpy(uuid16, args.fsid, 16);
    return 0;
}

int csystem_fstatfs(int fd, int64_t *type, int32_t *fsid0, int32_t *fsid1, uint64_t *block_size, uint64_t *blocks) {
    struct statfs s;
    int rc = fstatfs(fd, &s);
    if (rc != 0) return rc;
    *type = (int64_t)s.f_type;
    int words[2];
    memcpy(words, &s.f_fsid, sizeof words);
    *fsid0 = words[0];
    *fsid1 = words[1];
    *block_size = (uint64_t)s.f_bsize;
    *blocks = (uint64_t)s.f_blocks;
    return 0;
}

int csystem_statfs(const char *path, int64_t *type, int32_t *fsid0, int32_t *fsid1, uint64_t *block_size, uint64_t *blocks) {
    struct statfs s;
    int rc = statfs(path, &s);
    if (rc != 0) return rc;
    *type = (int64_t)s.f_type;
    int words[2];
    memcpy(words, &s.f_fsid, sizeof words);
    *fsid0 = words[0];
    *fsid1 = words[1];
    *block_size = (uint64_t)s.f_bsize;
    *blocks = (uint64_t)s.f_blocks;
    return 0;
}

int csystem_readdir(void *dir, uint64_t *ino, uint8_t *type, const char **name) {
    errno = 0;
    struct dirent *e = readdir((DIR *)dir);
    if (e == NULL) return errno == 0 ? 0 : -1;
    *ino = (uint64_t)e->d_ino;
    *type = e->d_type;
    *name = e->d_name;
    return 1;
}

void *csystem_fdopendir(int fd) { return fdopendir(fd); }
int csystem_closedir(void *dir) { return closedir((DIR *)dir); }
int csystem_openat(int dirfd, const char *path, int flags, uint32_t mode) { return openat(dirfd, path, flags, (mode_t)mode); }

int csystem_statmount(uint64_t unique_mount_id, uint64_t mask, void *buffer, size_t size) {
    struct { uint32_t size; uint32_t spare; uint64_t mnt_id; uint64_t param; } req;
    memset(&req, 0, sizeof req);
    req.size = sizeof req;   /* MNT_ID_REQ_SIZE_VER0 = 24 */
    req.mnt_id = unique_mount_id;
    req.param = mask;
    return (int)syscall(SYS_statmount, &req, buffer, size, 0);
}
