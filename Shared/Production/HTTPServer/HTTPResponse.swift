import Foundation
import Runtime

/// A complete HTTP answer: status, headers and body bytes.
///
/// `Content-Length` is computed by the server; do not set it.
public struct HTTPResponse: Sendable, Equatable {
    /// HTTP status code.
    public var status: Int
    /// Header lines in order; names are matched case-insensitively by `header(_:)`.
    public var headers: [HTTPHeader]
    /// Body bytes (ignored by the server for HEAD requests and 204/304 answers).
    public var body: [UInt8]

    /// A response with the given parts.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body decoded as UTF-8 (invalid sequences repaired).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// `value` encoded as JSON (`application/json`), keys sorted, dates as ISO 8601.
    ///
    /// If `value` cannot be encoded the answer is a 500 `internal_error` instead.
    /// - Parameters:
    ///   - value: the body value.
    ///   - status: HTTP status, 200 by default.
    public static func json(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        do {
            let data = try makeEncoder().encode(value)
            return HTTPResponse(status: status, headers: [jsonContentType], body: Array(data))
        } catch {
            return .error(status: 500, code: "internal_error", message: "response could not be encoded")
        }
    }

    /// A JSON response whose body the caller already encoded (it must be one JSON value).
    public static func json(encoded body: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [jsonContentType], body: body)
    }

    /// The encoder `json(_:status:)` uses: sorted keys, unescaped slashes, ISO 8601 dates. Encode pieces
    /// of a response with it so they read exactly like the rest.
    public static func jsonEncoder() -> JSONEncoder { makeEncoder() }

    /// A text body.
    /// - Parameters:
    ///   - text: body text, sent as UTF-8.
    ///   - status: HTTP status, 200 by default.
    ///   - contentType: `Content-Type` header value.
    public static func text(
        _ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8"
    ) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [HTTPHeader(name: "Content-Type", value: contentType)], body: Array(text.utf8))
    }

    /// 204 with an empty body.
    public static var noContent: HTTPResponse { HTTPResponse(status: 204) }

    /// A JSON error body `{"error": code, "message": message}`.
    /// - Parameters:
    ///   - status: HTTP status, e.g. 404.
    ///   - code: machine-readable error code, e.g. `"not_found"`.
    ///   - message: human-readable explanation (no secrets).
    public static func error(status: Int, code: String, message: String) -> HTTPResponse {
        var text = "{\"error\":"
        JSONText.appendString(code, to: &text)
        text += ",\"message\":"
        JSONText.appendString(message, to: &text)
        text += "}"
        return HTTPResponse(status: status, headers: [jsonContentType], body: Array(text.utf8))
    }

    static let jsonContentType = HTTPHeader(name: "Content-Type", value: "application/json")

    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
