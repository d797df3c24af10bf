// libFuzzer property harness: whatever any reader accepts, written in every format that can hold it and read
import PlistKit

// back, is equal; and XML output is stable on a second write.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoundTrip(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzCheck.roundTrip(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
