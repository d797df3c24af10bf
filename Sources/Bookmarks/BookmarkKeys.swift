/// TOC keys: Apple's numeric keys where the meaning is the same, and this library's reserved string keys.
public enum BookmarkKey {
    public static let url: UInt32 = 0x1003
    public static let pathComponents: UInt32 = 0x1004
    public static let fileIDs: UInt32 = 0x1005
    public static let fileProperties: UInt32 = 0x1010
    public static let fileName: UInt32 = 0x1020
    public static let creationDate: UInt32 = 0x1040
    public static let volumePath: UInt32 = 0x2002
    public static let volumeURL: UInt32 = 0x2005
    public static let volumeName: UInt32 = 0x2010
    public static let volumeUUID: UInt32 = 0x2011
    public static let volumeSize: UInt32 = 0x2012
    public static let volumeCreationDate: UInt32 = 0x2013
    public static let volumeProperties: UInt32 = 0x2020
    public static let volumeIsRoot: UInt32 = 0x2030
    public static let containingFolderIndex: UInt32 = 0xC001
    public static let userName: UInt32 = 0xC011
    public static let userID: UInt32 = 0xC012
    public static let wasFileReferenceURL: UInt32 = 0xD001
    public static let creationOptions: UInt32 = 0xD010
    public static let urlLengths: UInt32 = 0xE003
    public static let displayName: UInt32 = 0xF017
    public static let bookmarkCreationTime: UInt32 = 0xF030
    public static let sandboxReadWrite: UInt32 = 0xF080
    public static let sandboxReadOnly: UInt32 = 0xF081

    /// Prefix of this library's string keys; Apple's API would return them as custom resource values.
    public static let namespace = "org.plistkit.linux."
    public static let formatVersion = namespace + "format"
    public static let handle = namespace + "fh"
    public static let handleType = namespace + "fh.type"
    public static let handleIsFID = namespace + "fh.fid"
    public static let ancestorHandles = namespace + "anc.fh"
    public static let birthTimeNanoseconds = namespace + "btime.ns"
    public static let fsType = namespace + "fstype"
    public static let mountSource = namespace + "mnt.source"
    public static let mountRoot = namespace + "mnt.root"
    public static let fsid = namespace + "fsid"
    public static let device = namespace + "dev"
    public static let relativePath = namespace + "rel"
    /// The `S_IFMT` bits of a special file, shifted down 12 (FIFO 1, character device 2, block device 6, socket 12).
    public static let fileType = namespace + "type"

    /// Human names of the Apple keys (mac_alias / fq naming), for `inspect`.
    public static func name(of key: UInt32) -> String? {
        switch key {
        case 0x1003: return "URL"
        case 0x1004: return "path components"
        case 0x1005: return "file IDs (inode chain)"
        case 0x1010: return "file properties"
        case 0x1020: return "file name"
        case 0x1030: return "file ID"
        case 0x1040: return "creation date"
        case 0x2000: return "TOC path"
        case 0x2002: return "volume path"
        case 0x2005: return "volume URL"
        case 0x2010: return "volume name"
        case 0x2011: return "volume UUID"
        case 0x2012: return "volume size"
        case 0x2013: return "volume creation date"
        case 0x2020: return "volume properties"
        case 0x2030: return "volume is root"
        case 0x2040: return "volume bookmark"
        case 0x2050: return "volume mount URL"
        case 0xC001: return "containing folder index"
        case 0xC011: return "creator user name"
        case 0xC012: return "creator uid"
        case 0xD001: return "was file reference URL"
        case 0xD010: return "creation options"
        case 0xE003: return "URL lengths"
        case 0xF017: return "display name"
        case 0xF020: return "icon data"
        case 0xF021: return "icon ref"
        case 0xF022: return "type binding data"
        case 0xF030: return "bookmark creation time"
        case 0xF080: return "sandbox read-write extension"
        case 0xF081: return "sandbox read-only extension"
        case 0xFE00: return "alias data"
        default: return nil
        }
    }
}

/// `NSURL.BookmarkCreationOptions` with Apple's raw values.
public struct BookmarkCreationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Deprecated on Apple platforms; here it selects the identity-first resolution policy by default.
    public static let preferFileIDResolution = BookmarkCreationOptions(rawValue: 1 << 8)
    /// Omits ancestor handles, volume name/size, user name/uid and display name.
    public static let minimalBookmark = BookmarkCreationOptions(rawValue: 1 << 9)
    public static let suitableForBookmarkFile = BookmarkCreationOptions(rawValue: 1 << 10)
    /// Recorded only: Linux has no security scope, so it grants nothing.
    public static let withSecurityScope = BookmarkCreationOptions(rawValue: 1 << 11)
    /// Recorded only (see `withSecurityScope`).
    public static let securityScopeAllowOnlyReadAccess = BookmarkCreationOptions(rawValue: 1 << 12)
    /// Recorded only (a no-op on Linux).
    public static let withoutImplicitSecurityScope = BookmarkCreationOptions(rawValue: 1 << 29)
}

/// `NSURL.BookmarkResolutionOptions` with Apple's raw values; all are accepted, none changes behaviour on
/// Linux (there is no UI, the resolver never mounts, and security scopes do not exist).
public struct BookmarkResolutionOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let withoutUI = BookmarkResolutionOptions(rawValue: 1 << 8)
    public static let withoutMounting = BookmarkResolutionOptions(rawValue: 1 << 9)
    public static let withSecurityScope = BookmarkResolutionOptions(rawValue: 1 << 10)
    public static let withoutImplicitStartAccessing = BookmarkResolutionOptions(rawValue: 1 << 15)
}
