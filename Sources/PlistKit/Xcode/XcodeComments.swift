/// The reference comments Xcode derives from a project's object graph: one text per object, written after its key in
/// `objects` and after every value that refers to it (`ID /* text */`).
///
/// Per isa: the project is `Project object`; file elements and groups their `name`, else `path`; a build file
/// `<file> in <phase>`; build phases their `name`, else the kind (`Sources`, `Frameworks`, …); targets and
/// configurations their `name`; a configuration list `Build configuration list for <isa> "<owner name>"`; proxies,
/// dependencies and build rules their isa; package references and products their URL's last component, relative
/// path or product name; exception sets their isa before objectVersion 77, a sentence naming the folder and target
/// (and the phase, by its name in Xcode's editor) from 77 on. From Xcode 27 (`LastUpgradeCheck` 2700) a
/// configuration is `<name> configuration for <owner isa> "<owner name>"`. An object with no text gets no comment;
/// a `*/` in a text is written `* /`, so the comment cannot end early.
struct XcodeComments: Sendable {
    private(set) var byID: [String: String] = [:]

    /// The objects dictionary of a project value (nil when it is not one).
    static func objects(of root: PlistValue) -> PlistDictionary? {
        root["objects"]?.dictionaryValue
    }

    init(_ root: PlistValue, projectName: String?) {
        guard let objects = Self.objects(of: root) else { return }
        let rootID = root["rootObject"]?.stringValue
        let version = root["objectVersion"]?.stringValue.flatMap { Int($0) } ?? 0
        var phaseOf: [String: String] = [:]
        var ownerOf: [String: String] = [:]
        var groupOf: [String: String] = [:]
        var targetOf: [String: String] = [:]
        var listOf: [String: String] = [:]
        for (id, object) in objects {
            guard case .dictionary(let o) = object else { continue }
            if let isa = o["isa"]?.stringValue, isa.hasSuffix("BuildPhase"), let files = o["files"]?.arrayValue {
                for f in files { if let f = f.stringValue, phaseOf[f] == nil { phaseOf[f] = id } }
            }
            if let list = o["buildConfigurationList"]?.stringValue, ownerOf[list] == nil { ownerOf[list] = id }
            if let sets = o["exceptions"]?.arrayValue {
                for s in sets { if let s = s.stringValue, groupOf[s] == nil { groupOf[s] = id } }
            }
            if let phases = o["buildPhases"]?.arrayValue {
                for p in phases { if let p = p.stringValue, targetOf[p] == nil { targetOf[p] = id } }
            }
            if o["isa"]?.stringValue == "XCConfigurationList", let configurations = o["buildConfigurations"]?.arrayValue {
                for c in configurations { if let c = c.stringValue, listOf[c] == nil { listOf[c] = id } }
            }
        }
        // Xcode 27 names a configuration with its owner (two Xcode 27 projects, alanvardy/CheckStitch and
        // EvanBacon/xcode's `011-swift-ios-27` fixture; Xcode 26.3's keep the bare name).
        // (Some projects set 9999 to silence Xcode's upgrade prompt: that says nothing of the Xcode that saved them.)
        let lastUpgrade = rootID.flatMap { objects[$0]?["attributes"]?["LastUpgradeCheck"]?.stringValue }.flatMap { Int($0) } ?? 0
        let configurationsNameOwners = lastUpgrade >= 2700 && lastUpgrade < 9000
        func object(_ id: String?) -> PlistDictionary? { id.flatMap { objects[$0]?.dictionaryValue } }
        func string(_ o: PlistDictionary?, _ key: String) -> String? {
            guard let s = o?[key]?.stringValue, !s.isEmpty else { return nil }
            return s
        }
        func phaseName(_ o: PlistDictionary) -> String? {
            if let name = string(o, "name") { return name }
            guard let isa = string(o, "isa") else { return nil }
            var word = Substring(isa)
            if word.hasPrefix("PBX") { word = word.dropFirst(3) }
            if word.hasSuffix("BuildPhase") { word = word.dropLast(10) }
            return String(word)
        }
        func elementName(_ o: PlistDictionary?) -> String? { string(o, "name") ?? string(o, "path") }
        /// A phase as Xcode's editor names it (an exception set's comment names it so: `"Copy Files" phase`, in an
        /// Xcode 16 save of tuist/XcodeProj's `SynchronizedRootGroups` fixture).
        func phaseTitle(_ o: PlistDictionary) -> String? {
            if let name = string(o, "name") { return name }
            switch string(o, "isa") {
            case "PBXCopyFilesBuildPhase": return "Copy Files"
            case "PBXResourcesBuildPhase": return "Copy Bundle Resources"
            case "PBXSourcesBuildPhase": return "Compile Sources"
            case "PBXFrameworksBuildPhase": return "Link Binary With Libraries"
            case "PBXShellScriptBuildPhase": return "Run Script"
            case "PBXRezBuildPhase": return "Build Carbon Resources"
            default: return phaseName(o)
            }
        }
        /// The name a configuration list's owner goes by in comments (the project's is the project name).
        func ownerName(_ listID: String) -> (isa: String, name: String)? {
            guard let ownerID = ownerOf[listID], let owner = object(ownerID), let ownerIsa = string(owner, "isa") else { return nil }
            return (ownerIsa, ownerIsa == "PBXProject" ? (projectName ?? "") : (string(owner, "name") ?? ""))
        }
        var memo: [String: String?] = [:]
        // A comment can be made of another's (a build file's of its file's, an exception set's of its group's).
        // Xcode's graphs are two levels deep; a malformed one may refer back to an object being described (a build
        // file whose `fileRef` is itself: a fuzz find that recursed until the stack overflowed) or chain objects
        // deeper than any project does. Such a reference gets no text, as a missing object gets none.
        var depth = 0
        func comment(_ id: String) -> String? {
            if let known = memo[id] { return known }
            guard depth < Self.maxReferenceDepth else { return nil }
            memo[id] = .some(nil)  // in progress: a reference back to it gets no text
            depth += 1
            let text = compute(id)
            depth -= 1
            memo[id] = text
            return text
        }
        func compute(_ id: String) -> String? {
            guard let o = object(id), let isa = string(o, "isa") else { return nil }
            if id == rootID || isa == "PBXProject" { return "Project object" }
            switch isa {
            case "PBXFileReference", "PBXGroup", "PBXVariantGroup", "XCVersionGroup", "PBXReferenceProxy",
                 "PBXFileSystemSynchronizedRootGroup":
                return elementName(o)
            case "PBXBuildFile":
                var file = "(null)"
                if let ref = string(o, "fileRef") {
                    file = object(ref) == nil ? "(null)" : (comment(ref) ?? "(null)")
                } else if let product = string(o, "productRef") {
                    file = string(object(product), "productName") ?? "(null)"
                }
                guard let phase = object(phaseOf[id]), let name = phaseName(phase) else { return file }
                return "\(file) in \(name)"
            case "PBXNativeTarget", "PBXAggregateTarget", "PBXLegacyTarget":
                return string(o, "name")
            case "XCBuildConfiguration":
                guard configurationsNameOwners, let name = string(o, "name"), let list = listOf[id], let owner = ownerName(list)
                else { return string(o, "name") }
                return "\(name) configuration for \(owner.isa) \"\(owner.name)\""
            case "XCConfigurationList":
                guard let owner = ownerName(id) else { return nil }
                return "Build configuration list for \(owner.isa) \"\(owner.name)\""
            case "PBXContainerItemProxy", "PBXTargetDependency", "PBXBuildRule":
                return isa
            case "XCRemoteSwiftPackageReference":
                var last = Substring(string(o, "repositoryURL") ?? "")
                while last.hasSuffix("/") { last = last.dropLast() }
                if let slash = last.lastIndex(of: "/") { last = last[last.index(after: slash)...] }
                if last.hasSuffix(".git") { last = last.dropLast(4) }
                return "\(isa) \"\(last)\""
            case "XCLocalSwiftPackageReference":
                return "\(isa) \"\(string(o, "relativePath") ?? "")\""
            case "XCSwiftPackageProductDependency":
                guard var name = string(o, "productName") else { return nil }
                if name.hasPrefix("plugin:") { name.removeFirst(7) }
                return name
            case "PBXFileSystemSynchronizedBuildFileExceptionSet":
                guard version >= 77 else { return isa }
                let group = groupOf[id].flatMap { comment($0) } ?? ""
                let target = string(object(string(o, "target")), "name") ?? ""
                return "Exceptions for \"\(group)\" folder in \"\(target)\" target"
            case "PBXFileSystemSynchronizedGroupBuildPhaseMembershipExceptionSet":
                guard version >= 77 else { return isa }
                let group = groupOf[id].flatMap { comment($0) } ?? ""
                let phaseID = string(o, "buildPhase")
                let phase = object(phaseID).flatMap { phaseTitle($0) } ?? ""
                let target = string(object(phaseID.flatMap { targetOf[$0] }), "name") ?? ""
                return "Exceptions for \"\(group)\" folder in \"\(phase)\" phase from \"\(target)\" target"
            default:
                if isa.hasSuffix("BuildPhase") { return phaseName(o) }
                return string(o, "name")
            }
        }
        for id in objects.keys {
            // Xcode writes a name into its comment as it is; a `*/` in it would end the comment there, and the file
            // would not read back (a real project's group renamed `Src */ x`).
            if let text = comment(id), !text.isEmpty { byID[id] = text.contains("*/") ? text.replacing("*/", with: "* /") : text }
        }
    }

    /// How many comments deep one comment may be made of others (Xcode's own graphs need two).
    static let maxReferenceDepth = 16

    subscript(id: String) -> String? { byID[id] }

    /// The project name in a project's text, from its `Build configuration list for PBXProject "<name>"` comment.
    static func projectName(inCommentsOf bytes: [UInt8]) -> String? {
        let marker = Array("/* Build configuration list for PBXProject \"".utf8)
        guard let r = TextBytes.find(marker, in: bytes) else { return nil }
        let end = Array("\" */".utf8)
        guard let e = TextBytes.find(end, in: bytes, from: r.upperBound) else { return nil }
        return String(decoding: bytes[r.upperBound..<e.lowerBound], as: UTF8.self)
    }

    /// The project name Xcode takes from a path: the `.xcodeproj` folder's name without its extension, when the path
    /// is `…/Name.xcodeproj/project.pbxproj` or `…/Name.xcodeproj`.
    static func projectName(fromPath path: String) -> String? {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true)
        if parts.last == "project.pbxproj" { parts.removeLast() }
        guard let folder = parts.last, folder.hasSuffix(".xcodeproj"), folder.count > 10 else { return nil }
        return String(folder.dropLast(10))
    }
}
