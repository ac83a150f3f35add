import Foundation
import HTTP2

/// One push mock-apns accepted, as `GET /mock/deliveries?since=` lists it (other fields ignored).
struct MockDelivery: Codable, Sendable, Equatable {
    var sequence: Int?
    var token: String
    var payload: String
    var pushType: String?
    /// The push's `apns-id`; on a broadcast's copy, the broadcast's request id (the same for every subscriber).
    var apnsID: String? = nil
    /// Set on a broadcast's copy: the channel it came through.
    var channelId: String? = nil
    /// `apns-priority` and when mock-apns accepted it (Unix ms).
    var priority: Int? = nil
    var receivedAt: Int64? = nil
}

/// The parts of mock-apns' control API the simulator uses.
protocol MockAPNsPort: Sendable {
    /// Accepted pushes with a sequence above `since`, oldest first, at most `limit`.
    func deliveries(since: Int, limit: Int) async throws -> [MockDelivery]
    /// Makes later pushes to `token` answer 410 Unregistered.
    func markUnregistered(token: String) async throws
    /// Subscribes `subscriber` to broadcast channel `channelId` (each later broadcast is copied to it as a delivery).
    func subscribe(channelId: String, subscriber: String) async throws
}

/// `MockAPNsPort` over TLS HTTP/2 (mock-apns speaks nothing else), trusting `caFile`.
final class MockAPNsControlClient: MockAPNsPort {
    private let client: HTTP2Client

    /// - Parameter baseURL: e.g. `https://127.0.0.1:2197`.
    /// - Throws: `MockAPNsControlError` for a URL without host/port, `HTTP2Error` for an unreadable CA file.
    init(baseURL: String, caFile: String?) throws {
        guard let components = URLComponents(string: baseURL), let host = components.host else {
            throw MockAPNsControlError(path: baseURL, status: 0, excerpt: "not an https://host:port URL")
        }
        client = try HTTP2Client(configuration: HTTP2ClientConfiguration(
            host: host, port: components.port ?? 443, caFile: caFile, connections: 1, requestTimeout: .seconds(10),
            connectTimeout: .seconds(5), reconnectMaxDelay: .seconds(2)))
    }

    deinit { client.shutdown() }

    func deliveries(since: Int, limit: Int) async throws -> [MockDelivery] {
        let path = "/mock/deliveries?since=\(since)&limit=\(limit)"
        let response = try await client.send(HTTP2Request(method: "GET", path: path))
        guard response.status == 200 else { throw MockAPNsControlError(path: path, response: response) }
        do {
            return try JSONDecoder().decode([MockDelivery].self, from: Data(response.body))
        } catch {
            throw MockAPNsControlError(path: path, response: response)
        }
    }

    func markUnregistered(token: String) async throws {
        let body = try JSONEncoder().encode(["token": token])
        let response = try await client.send(HTTP2Request(method: "POST", path: "/mock/unregistered", body: Array(body)))
        guard (200..<300).contains(response.status) else { throw MockAPNsControlError(path: "/mock/unregistered", response: response) }
    }

    func subscribe(channelId: String, subscriber: String) async throws {
        let body = try JSONEncoder().encode(["channelId": channelId, "subscriber": subscriber])
        let response = try await client.send(HTTP2Request(method: "POST", path: "/mock/channels/subscribe", body: Array(body)))
        guard (200..<300).contains(response.status) else { throw MockAPNsControlError(path: "/mock/channels/subscribe", response: response) }
    }

    func shutdown() { client.shutdown() }
}

/// A control call mock-apns refused or answered with something unreadable.
struct MockAPNsControlError: Error, Sendable, Equatable, CustomStringConvertible {
    var path: String
    var status: Int
    var excerpt: String

    init(path: String, status: Int, excerpt: String) {
        self.path = path
        self.status = status
        self.excerpt = excerpt
    }

    init(path: String, response: HTTP2Response) {
        self.init(path: path, status: response.status, excerpt: String(decoding: response.body.prefix(200), as: UTF8.self))
    }

    var description: String { "mock-apns \(path) → \(status): \(excerpt)" }
}
