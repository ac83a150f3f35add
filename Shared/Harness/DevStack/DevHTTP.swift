import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
import Runtime
#endif

/// Plain-HTTP requests to the stack's own processes (127.0.0.1): readiness probes, admin calls,
/// metrics scrapes. Each request has its own short timeout.
public struct DevHTTP: Sendable {
    /// A reply: status and body.
    public struct Reply: Sendable {
        public var status: Int
        public var body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public var timeout: TimeInterval
    public var headers: [String: String]

    public init(timeout: TimeInterval = 5, headers: [String: String] = [:]) {
        self.timeout = timeout
        self.headers = headers
    }

    /// `GET url`.
    public func get(_ url: String) async throws(DevStackError) -> Reply {
        try await send("GET", url, body: nil)
    }

    /// `POST url` with a JSON body (or none).
    public func post(_ url: String, json: String? = nil) async throws(DevStackError) -> Reply {
        try await send("POST", url, body: json.map { Data($0.utf8) })
    }

    /// Sends one request; transport failures throw, any HTTP status is returned.
    public func send(_ method: String, _ url: String, body: Data?) async throws(DevStackError) -> Reply {
        guard let target = URL(string: url) else { throw .request(url: url, reason: "not a URL") }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        do {
            let (data, response) = try await URLSession.shared.dataIgnoringCancellation(for: request)
            return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
        } catch {
            throw .request(url: url, reason: "\(error)")
        }
    }

    /// `GET url` decoded as JSON `T`; non-200 throws.
    public func getJSON<T: Decodable>(_ url: String, as type: T.Type = T.self) async throws(DevStackError) -> T {
        let reply = try await get(url)
        guard reply.status == 200 else { throw .request(url: url, reason: "HTTP \(reply.status): \(reply.text.prefix(200))") }
        do { return try JSONDecoder().decode(T.self, from: reply.body) } catch {
            throw .request(url: url, reason: "unexpected JSON (\(error)): \(reply.text.prefix(200))")
        }
    }
}
