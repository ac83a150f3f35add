import Foundation

/// A fully received HTTP request as seen by handlers and middleware.
public struct HTTPRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The path exactly as sent (still percent-encoded), without the query string, e.g. `/matches/42`.
    public var path: String
    /// Query parameters, percent-decoded (`+` means space); the first occurrence of a name wins.
    public var query: [String: String]
    /// Headers keyed by lower-cased name; repeated headers are joined with `", "`. Prefer `header(_:)`.
    public var headers: [String: String]
    /// The raw body bytes (at most `HTTPServerConfiguration.maxBodyBytes`).
    public var body: [UInt8]
    /// Values captured by `:name` segments of the matched route, percent-decoded. Filled by the router.
    public var pathParameters: [String: String]
    /// The pattern of the matched route, e.g. `/matches/:matchId`; nil when no route matched.
    public var route: String?

    /// Builds a request; used by the server and by tests that call a `Router` directly.
    /// - Parameters:
    ///   - method: request method.
    ///   - path: percent-encoded path without query; a `?query` suffix is split off and parsed.
    ///   - query: extra query parameters (override those parsed from `path`).
    ///   - headers: header names in any case.
    ///   - body: body bytes.
    public init(
        method: HTTPMethod, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: [UInt8] = []
    ) {
        let target = HTTPRequest.splitTarget(path)
        self.method = method
        self.path = target.path
        self.query = target.query.merging(query) { _, explicit in explicit }
        var lowered: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            lowered[key] = lowered[key].map { "\($0), \(value)" } ?? value
        }
        self.headers = lowered
        self.body = body
        self.pathParameters = [:]
        self.route = nil
    }

    /// The value of header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The path parameter `name`.
    /// - Throws: `HTTPError` 400 `missing_parameter` when the matched route has no such parameter.
    public func parameter(_ name: String) throws(HTTPError) -> String {
        guard let value = pathParameters[name] else {
            throw HTTPError(status: 400, code: "missing_parameter", message: "path parameter '\(name)' is missing")
        }
        return value
    }

    /// The body as UTF-8 text (invalid sequences repaired).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Splits `/a/b?x=1&y=%20` into the raw path and decoded query parameters.
    static func splitTarget(_ target: String) -> (path: String, query: [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        let path = String(target[..<mark])
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decodeQueryComponent(parts[0])
            guard !name.isEmpty, query[name] == nil else { continue }
            query[name] = parts.count > 1 ? decodeQueryComponent(parts[1]) : ""
        }
        return (path, query)
    }

    static func decodeQueryComponent(_ component: Substring) -> String {
        let spaced = component.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
