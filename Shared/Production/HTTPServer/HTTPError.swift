/// An error that knows how it should be answered: a status, a machine-readable `code` and a
/// human-readable `message`, rendered as `{"error": code, "message": message}`.
///
/// Throw it from a handler or middleware to answer with that status. Any other error thrown by a
/// handler becomes `500 {"error":"internal_error"}` and is logged (its details never reach the client).
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// HTTP status code of the answer, e.g. 404.
    public var status: Int
    /// Stable machine-readable code, e.g. `"not_found"`.
    public var code: String
    /// Human-readable explanation; must not contain secrets.
    public var message: String
    /// Extra response headers, e.g. `Allow` on a 405.
    public var headers: [HTTPHeader]

    /// - Parameters:
    ///   - status: HTTP status code of the answer.
    ///   - code: machine-readable error code.
    ///   - message: human-readable explanation.
    ///   - headers: extra headers for the answer.
    public init(status: Int, code: String, message: String, headers: [HTTPHeader] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// The JSON error answer for this error.
    public var response: HTTPResponse {
        var response = HTTPResponse.error(status: status, code: code, message: message)
        response.headers.append(contentsOf: headers)
        return response
    }

    public var description: String { "HTTP \(status) \(code): \(message)" }

    /// 400 `bad_request`.
    public static func badRequest(_ message: String) -> HTTPError {
        HTTPError(status: 400, code: "bad_request", message: message)
    }

    /// 400 `malformed_json`: the body is not syntactically valid JSON.
    public static func malformedJSON(_ message: String) -> HTTPError {
        HTTPError(status: 400, code: "malformed_json", message: message)
    }

    /// 400 `invalid_body`: valid JSON that does not fit the expected shape.
    public static func invalidBody(_ message: String) -> HTTPError {
        HTTPError(status: 400, code: "invalid_body", message: message)
    }

    /// 401 `unauthorized`.
    public static func unauthorized(_ message: String = "authentication required") -> HTTPError {
        HTTPError(status: 401, code: "unauthorized", message: message)
    }

    /// 403 `forbidden`.
    public static func forbidden(_ message: String = "forbidden") -> HTTPError {
        HTTPError(status: 403, code: "forbidden", message: message)
    }

    /// 404 `not_found`.
    public static func notFound(_ message: String) -> HTTPError {
        HTTPError(status: 404, code: "not_found", message: message)
    }

    /// 405 `method_not_allowed` with an `Allow` header listing `allowed`.
    public static func methodNotAllowed(_ method: HTTPMethod, path: String, allowed: [HTTPMethod]) -> HTTPError {
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        return HTTPError(
            status: 405, code: "method_not_allowed",
            message: "method \(method) is not allowed on \(path); allowed: \(allow)",
            headers: [HTTPHeader(name: "Allow", value: allow)])
    }

    /// 409 `conflict`.
    public static func conflict(_ message: String) -> HTTPError {
        HTTPError(status: 409, code: "conflict", message: message)
    }

    /// 413 `payload_too_large`.
    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(status: 413, code: "payload_too_large", message: "request body exceeds the limit of \(limit) bytes")
    }

    /// 500 `internal_error` with a generic message.
    public static let internalError = HTTPError(
        status: 500, code: "internal_error", message: "internal server error")

    /// 503 `unavailable`.
    public static func unavailable(_ message: String) -> HTTPError {
        HTTPError(status: 503, code: "unavailable", message: message)
    }

    /// 503 `unavailable` with `Retry-After` (seconds): a dependency (database, broker) is down or stalled.
    public static func dependencyUnavailable(_ message: String, retryAfterSeconds: Int = 2) -> HTTPError {
        HTTPError(status: 503, code: "unavailable", message: message,
                  headers: [HTTPHeader(name: "Retry-After", value: String(retryAfterSeconds))])
    }
}
