import Foundation

extension HTTPRequest {
    /// Decodes the body as strict JSON into `T` (dates as ISO 8601).
    ///
    /// - Throws: `HTTPError` 400 `malformed_json` when the body is empty or not valid JSON (the message
    ///   names the syntax problem), 415 `unsupported_media_type` when `Content-Type` is not
    ///   `application/json` (or a `+json` type), or 400 `invalid_body` when the JSON does not fit `T` (the
    ///   message names the field path, e.g. `items[2].score`, and what was wrong).
    public func decode<T: Decodable>(_ type: T.Type) throws(HTTPError) -> T {
        guard !body.isEmpty else { throw .malformedJSON("request body is empty; expected JSON") }
        guard Self.isJSONMediaType(header("content-type")) else {
            throw HTTPError(
                status: 415, code: "unsupported_media_type",
                message: "the body must be sent as Content-Type: application/json")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(T.self, from: Data(body))
        } catch let error as DecodingError {
            throw HTTPRequest.httpError(for: error)
        } catch {
            throw .malformedJSON("request body is not valid JSON: \(error)")
        }
    }

    /// `application/json` or `application/<something>+json`, parameters (`; charset=utf-8`) ignored.
    static func isJSONMediaType(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingHTTPWhitespace() } ?? ""
        let lowered = mediaType.lowercased()
        return lowered == "application/json" || (lowered.hasPrefix("application/") && lowered.hasSuffix("+json"))
    }

    /// Maps a `DecodingError` to a 400 `malformed_json` or `invalid_body` error naming the field.
    static func httpError(for error: DecodingError) -> HTTPError {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            let detail = context.underlyingError.map { String(describing: $0) } ?? context.debugDescription
            return .malformedJSON("request body is not valid JSON: \(detail)")
        case .dataCorrupted(let context):
            return .invalidBody("invalid value for '\(fieldPath(context.codingPath))': \(context.debugDescription)")
        case .keyNotFound(let key, let context):
            return .invalidBody("missing field '\(fieldPath(context.codingPath + [key]))'")
        case .typeMismatch(let expected, let context):
            return .invalidBody(
                "wrong type for '\(fieldPath(context.codingPath))': expected \(typeName(expected))")
        case .valueNotFound(let expected, let context):
            return .invalidBody("'\(fieldPath(context.codingPath))' must not be null: expected \(typeName(expected))")
        @unknown default:
            return .invalidBody("request body does not match the expected shape")
        }
    }

    /// `items[2].score` style path; `<root>` for the top level.
    static func fieldPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "<root>" : text
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "string"
        case is Bool.Type: "boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type, is UInt32.Type: "integer"
        case is Double.Type, is Float.Type: "number"
        case is [Any].Type: "array"
        case is [String: Any].Type: "object"
        default: String(describing: type)
        }
    }
}
