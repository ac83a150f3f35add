import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
import Runtime
#endif

/// Why a SportMonks request failed; `kind` is the `poller_errors_total` label.
enum FeedRequestError: Error, Equatable, CustomStringConvertible {
    /// No answer (connection refused, timeout, TLS failure).
    case transport(path: String, reason: String)
    /// A non-2xx answer; `retryAfter` from the `Retry-After` header (seconds) on 429/503.
    case status(path: String, code: Int, retryAfter: Int?, excerpt: String)
    /// A 2xx answer that is not the expected JSON.
    case malformed(path: String, reason: String, excerpt: String)

    var kind: String {
        switch self {
        case .transport: "transport"
        case .status(_, 429, _, _): "rate_limited"
        case .status(_, let code, _, _) where code >= 500: "http_5xx"
        case .status: "http_4xx"
        case .malformed: "malformed"
        }
    }

    var retryAfter: Int? {
        if case .status(_, 429, let seconds, _) = self { return seconds }
        return nil
    }

    var description: String {
        switch self {
        case .transport(let path, let reason): "GET \(path): \(reason)"
        case .status(let path, let code, let retryAfter, let excerpt):
            "GET \(path): HTTP \(code)\(retryAfter.map { " (Retry-After \($0) s)" } ?? ""): \(excerpt)"
        case .malformed(let path, let reason, let excerpt): "GET \(path): \(reason): \(excerpt)"
        }
    }
}

/// A minimal SportMonks Cricket v2.0 client over URLSession (https in production, http for the fake).
/// The token travels as the `api_token` query parameter and is never logged.
struct SportMonksClient: Sendable {
    let baseURL: String
    let apiToken: String
    let timeout: Duration
    private let session: URLSession

    init(baseURL: String, apiToken: String, timeout: Duration) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiToken = apiToken
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout.seconds
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    /// GET `/livescores?include=…`: the body bytes.
    func livescores(include: String) async throws(FeedRequestError) -> Data {
        try await get("/livescores", ["include": include])
    }

    /// GET `/fixtures/{id}?include=…`.
    func fixture(id: Int, include: String) async throws(FeedRequestError) -> Data {
        try await get("/fixtures/\(id)", ["include": include])
    }

    /// GET `/fixtures?filter[starts_between]=from,to&include=…&page=n`.
    func fixtures(startsBetween from: String, and to: String, include: String, page: Int) async throws(FeedRequestError) -> Data {
        try await get("/fixtures", ["filter[starts_between]": "\(from),\(to)", "include": include, "page": String(page)])
    }

    /// One GET; 2xx bodies are returned, anything else is a `FeedRequestError`.
    func get(_ path: String, _ parameters: [String: String]) async throws(FeedRequestError) -> Data {
        guard var components = URLComponents(string: baseURL + path) else {
            throw .transport(path: path, reason: "invalid URL \(baseURL + path)")
        }
        components.queryItems = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            + [URLQueryItem(name: "api_token", value: apiToken)]
        guard let url = components.url else { throw .transport(path: path, reason: "invalid query") }
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.dataIgnoringCancellation(for: request)
        } catch {
            throw .transport(path: path, reason: String(describing: error))
        }
        let excerpt = String(decoding: data.prefix(160), as: UTF8.self)
        guard let http = response as? HTTPURLResponse else {
            throw .transport(path: path, reason: "not an HTTP response")
        }
        guard (200..<300).contains(http.statusCode) else {
            let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            throw .status(path: path, code: http.statusCode, retryAfter: retryAfter, excerpt: excerpt)
        }
        return data
    }
}
