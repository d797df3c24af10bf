// libFuzzer harness: the OpenStep / GNUstep / .strings reader must return a value or throw PlistError.
import PlistKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenStep(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzCheck.parse(UnsafeRawBufferPointer(start: data, count: size), as: .openStep)
    return 0
}
