import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// User names by uid, looked up once per process (NSS lookups cost far more than the rest of `create`).
enum UserNames {
    private static let cache = Mutex<[uid_t: String?]>([:])

    static func name(of uid: uid_t) -> String? {
        if let hit = cache.withLock({ $0[uid] }) { return hit }
        let name = (try? Sys.userName(uid).get()) ?? nil
        cache.withLock { $0[uid] = name }
        return name
    }
}
