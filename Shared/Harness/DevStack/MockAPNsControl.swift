import Foundation
import HTTP2
import Runtime

/// The control API of a running mock-apns (`/mock/counters`, `/mock/deliveries`, …) over its TLS
/// HTTP/2 listener, trusting the mock's own certificate.
public final class MockAPNsControl: Sendable {
    /// `GET /mock/counters`.
    public struct Counters: Decodable, Sendable, Equatable {
        public var accepted: Int
        public var rejected: [String: Int]
        /// Broadcasts accepted, their copies to subscribers, and broadcasts accepted twice (one request id).
        public var broadcastsAccepted: Int
        public var broadcastCopies: Int
        public var repeatedBroadcasts: Int
    }

    private let client: HTTP2Client

    /// - Parameters: port of mock-apns on 127.0.0.1, `caFile` its `cert.pem`.
    public init(port: Int, caFile: String, logger: Logger = Logger(label: "dev-stack.mock-apns", minimumLevel: .error)) throws {
        client = try HTTP2Client(
            configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: port, caFile: caFile,
                                                    connections: 1, requestTimeout: .seconds(30), connectTimeout: .seconds(5),
                                                    maxResponseBodyBytes: 1 << 30),  // a run's records (`/mock/deliveries`) run to megabytes
            logger: logger)
    }

    deinit { client.shutdown() }

    /// Sends `method path` and returns the reply; non-2xx throws.
    public func send(_ method: String, _ path: String, json: String? = nil) async throws -> HTTP2Response {
        let headers = json == nil ? [] : [HTTP2Header("content-type", "application/json")]
        let response = try await client.send(HTTP2Request(method: method, path: path, headers: headers, body: Array((json ?? "").utf8)))
        guard (200..<300).contains(response.status) else {
            throw DevStackError.request(url: "mock-apns \(method) \(path)",
                                        reason: "HTTP \(response.status): \(String(decoding: response.body, as: UTF8.self).prefix(200))")
        }
        return response
    }

    /// Pushes accepted and rejected so far.
    public func counters() async throws -> Counters {
        let response = try await send("GET", "/mock/counters")
        return try JSONDecoder().decode(Counters.self, from: Data(response.body))
    }

    /// Deletes broadcast channel `channelId` behind its owner's back (`POST /mock/channels/delete`).
    public func deleteChannel(_ channelId: String) async throws {
        let body = try JSONEncoder().encode(["channelId": channelId])
        _ = try await send("POST", "/mock/channels/delete", json: String(decoding: body, as: UTF8.self))
    }

    /// Every recorded delivery as raw JSON objects (optionally for one token).
    public func deliveries(token: String? = nil) async throws -> [[String: Any]] {
        let response = try await send("GET", "/mock/deliveries" + (token.map { "?token=\($0)" } ?? ""))
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]) ?? []
    }
}
