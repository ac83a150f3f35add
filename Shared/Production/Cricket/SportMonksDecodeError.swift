import Foundation

/// Why a SportMonks reply could not be decoded. Always names the JSON path and, when it could be read,
/// the fixture id, e.g. `invalidField(fixtureId: 71344, path: "data.runs[0].score", reason: "expected Int, found String")`.
public enum SportMonksDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not JSON at all (or not an object with `data`).
    case invalidJSON(reason: String)
    /// A field is missing, null where a value is required, or of the wrong type.
    case invalidField(fixtureId: Int?, path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidJSON(let reason):
            return "SportMonks reply is not valid JSON: \(reason)"
        case .invalidField(let fixtureId, let path, let reason):
            return "SportMonks fixture \(fixtureId.map(String.init) ?? "?") field \(path): \(reason)"
        }
    }

    /// Maps a `DecodingError` to an `invalidField` with a dotted path; the fixture id is read leniently from `data`.
    static func from(_ error: Error, data: Data) -> SportMonksDecodeError {
        guard let decodingError = error as? DecodingError else {
            return .invalidJSON(reason: String(describing: error))
        }
        var codingPath: [CodingKey]
        let reason: String
        switch decodingError {
        case .typeMismatch(let type, let context):
            codingPath = context.codingPath
            reason = "expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            codingPath = context.codingPath
            reason = "required \(type) is null"
        case .keyNotFound(let key, let context):
            codingPath = context.codingPath + [key]
            reason = "required key is missing"
        case .dataCorrupted(let context):
            codingPath = context.codingPath
            if codingPath.isEmpty { return .invalidJSON(reason: context.debugDescription) }
            reason = context.debugDescription
        @unknown default:
            return .invalidJSON(reason: String(describing: decodingError))
        }
        if codingPath.isEmpty { return .invalidJSON(reason: reason) }
        return .invalidField(fixtureId: fixtureId(in: data, along: codingPath), path: dottedPath(codingPath), reason: reason)
    }

    /// "data.runs[0].score" from a coding path.
    static func dottedPath(_ codingPath: [CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return path
    }

    /// `data.id`, or `data[i].id` when the path goes through a list element.
    private static func fixtureId(in data: Data, along codingPath: [CodingKey]) -> Int? {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        if let fixture = root["data"] as? [String: Any] { return fixture["id"] as? Int }
        if let list = root["data"] as? [Any], codingPath.count > 1, let index = codingPath[1].intValue,
           index < list.count, let fixture = list[index] as? [String: Any] {
            return fixture["id"] as? Int
        }
        return nil
    }
}
