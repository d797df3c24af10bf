import PlistKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Who the process is: `getuid(2)`, `getpwuid_r(3)`.
extension Sys {
    /// The real user id (the call cannot fail).
    static func userID() -> uid_t { getuid() }

    /// The name the password database gives `uid`, nil when it has no entry.
    static func userName(_ uid: uid_t) -> Result<String?, Errno> {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>? = nil
        var buffer = [CChar](repeating: 0, count: 4096)
        let capacity = buffer.count
        // getpwuid_r returns the error number instead of setting errno.
        let code = getpwuid_r(uid, &entry, &buffer, capacity, &found)
        guard code == 0 else { return .failure(Errno(code)) }
        return .success(found == nil ? nil : entry.pw_name.map { String(cString: $0) })
    }
}
