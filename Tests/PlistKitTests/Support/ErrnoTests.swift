import Foundation
import Testing
import PlistKit

/// `Errno`: the number as a value and the system's text as its description.
@Suite struct ErrnoTests {
    @Test func describesItselfWithTheSystemsText() {
        #expect(Errno.noSuchFileOrDirectory.description == String(cString: strerror(ENOENT)))
        #expect("\(Errno(ENOSPC))" == String(cString: strerror(ENOSPC)))
        #expect(Errno(rawValue: EACCES) == .permissionDenied)
        #expect(Errno.interrupted.rawValue == EINTR)
    }

    @Test func currentIsTheErrnoTheLastCallSet() {
        #expect(close(-1) == -1)
        #expect(Errno.current == Errno(EBADF))
    }

    @Test func fileWriteErrorCarriesTheErrnoAndKeepsItsCode() {
        let error = FileWriteError(operation: "write", path: "/x", systemError: Errno(ENOSPC))
        #expect(error.code == ENOSPC)
        #expect(error == FileWriteError(operation: "write", path: "/x", code: ENOSPC))
        #expect(error.reason == String(cString: strerror(ENOSPC)))
        #expect(error.description == "write failed for /x: \(String(cString: strerror(ENOSPC)))")
    }
}
