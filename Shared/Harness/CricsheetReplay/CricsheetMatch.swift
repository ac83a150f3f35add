import Foundation

/// One Cricsheet match (JSON format 1.0.0 / 1.1.0, https://cricsheet.org/format/json/).
public struct CricsheetMatch: Sendable, Hashable, Codable {
    /// Cricsheet match id = the file number (e.g. 1144504); also the SportMonks fixture id of the replay.
    public var id: Int
    public var meta: CricsheetMeta
    public var info: CricsheetInfo
    /// All innings in playing order, super overs included (`superOver == true`).
    public var innings: [CricsheetInnings]

    public init(id: Int, meta: CricsheetMeta, info: CricsheetInfo, innings: [CricsheetInnings]) {
        self.id = id; self.meta = meta; self.info = info; self.innings = innings
    }

    /// Decodes a Cricsheet file's bytes; `id` is the match id (the file number).
    /// - Throws: `CricsheetDecodeError` with the match id and the JSON path that failed.
    public static func decode(from data: Data, id: Int) throws(CricsheetDecodeError) -> CricsheetMatch {
        do {
            let file = try JSONDecoder().decode(File.self, from: data)
            return CricsheetMatch(id: id, meta: file.meta, info: file.info, innings: file.innings)
        } catch {
            throw CricsheetDecodeError.from(error, matchId: id)
        }
    }

    /// Reads `<id>.json`; the id comes from the file name.
    public static func load(contentsOf url: URL) throws(CricsheetDecodeError) -> CricsheetMatch {
        let stem = url.deletingPathExtension().lastPathComponent
        guard let id = Int(stem) else {
            throw .unreadable(path: url.path, reason: "file name is not a Cricsheet match id")
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .unreadable(path: url.path, reason: String(describing: error))
        }
        return try decode(from: data, id: id)
    }

    /// Every `<number>.json` in `directory`, sorted by id.
    public static func loadAll(in directory: URL) throws(CricsheetDecodeError) -> [CricsheetMatch] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory.path) } catch {
            throw .unreadable(path: directory.path, reason: String(describing: error))
        }
        var matches: [CricsheetMatch] = []
        for name in names.sorted() where name.hasSuffix(".json") && Int(name.dropLast(5)) != nil {
            matches.append(try load(contentsOf: directory.appendingPathComponent(name)))
        }
        return matches.sorted { $0.id < $1.id }
    }

    /// Number of deliveries in the whole match (all innings, super overs included).
    public var totalDeliveries: Int { innings.reduce(0) { $0 + $1.deliveryCount } }

    /// The registry id (8 hex digits) of a person, when listed.
    public func registryId(of name: String) -> String? { info.registry?.people[name] }

    struct File: Codable {
        var meta: CricsheetMeta
        var info: CricsheetInfo
        var innings: [CricsheetInnings]
    }
}

/// `meta`: format version and revision of the file.
public struct CricsheetMeta: Sendable, Hashable, Codable {
    public var dataVersion: String
    public var created: String?
    public var revision: Int?

    enum CodingKeys: String, CodingKey {
        case dataVersion = "data_version"
        case created, revision
    }
}

/// Why a Cricsheet file could not be read.
public enum CricsheetDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalidField(matchId: Int, path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "Cricsheet file \(path) unreadable: \(reason)"
        case .invalidField(let matchId, let path, let reason): "Cricsheet match \(matchId) field \(path): \(reason)"
        }
    }

    static func from(_ error: Error, matchId: Int) -> CricsheetDecodeError {
        guard let decodingError = error as? DecodingError else {
            return .invalidField(matchId: matchId, path: "", reason: String(describing: error))
        }
        switch decodingError {
        case .typeMismatch(let type, let context):
            return .invalidField(matchId: matchId, path: dotted(context.codingPath), reason: "expected \(type)")
        case .valueNotFound(let type, let context):
            return .invalidField(matchId: matchId, path: dotted(context.codingPath), reason: "required \(type) is null")
        case .keyNotFound(let key, let context):
            return .invalidField(matchId: matchId, path: dotted(context.codingPath + [key]), reason: "required key is missing")
        case .dataCorrupted(let context):
            return .invalidField(matchId: matchId, path: dotted(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return .invalidField(matchId: matchId, path: "", reason: String(describing: decodingError))
        }
    }

    private static func dotted(_ codingPath: [CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue { path += "[\(index)]" } else { path += path.isEmpty ? key.stringValue : ".\(key.stringValue)" }
        }
        return path
    }
}
