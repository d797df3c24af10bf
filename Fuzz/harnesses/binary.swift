// libFuzzer harness: the binary reader must return a value or throw PlistError — nothing else.
import PlistKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBinary(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzCheck.parse(UnsafeRawBufferPointer(start: data, count: size), as: .binary)
    return 0
}
