import ClientCore
import Contracts
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
import Runtime
#endif

/// `BackendAPI` over HTTP for one simulated user: JSON bodies, `Authorization: Bearer <JWT>`.
struct BackendHTTPClient: BackendAPI {
    let baseURL: String
    let userId: String
    let minter: any UserTokenMinter
    let session: URLSession

    /// One `URLSession` for every user of a run (connection reuse), with `timeout` per request.
    static func makeSession(timeout: TimeInterval = 10, connectionsPerHost: Int = 16) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = connectionsPerHost
        return URLSession(configuration: configuration)
    }

    func registerDevice(_ registration: DeviceRegistration) async throws {
        _ = try await send("POST", "/devices", body: registration)
    }

    func followMatch(matchId: String, deviceId: String) async throws -> FollowResponse {
        struct Body: Encodable { var matchId: String; var deviceId: String }
        let data = try await send("POST", "/user/follow/match", body: Body(matchId: matchId, deviceId: deviceId))
        return try decode(FollowResponse.self, data, path: "/user/follow/match")
    }

    func unfollowMatch(matchId: String) async throws {
        struct Body: Encodable { var matchId: String }
        _ = try await send("DELETE", "/user/follow/match", body: Body(matchId: matchId))
    }

    func listFollows() async throws -> FollowList {
        try decode(FollowList.self, try await send("GET", "/user/follows"), path: "/user/follows")
    }

    func postActivityToken(matchId: String, token: String, deviceId: String) async throws {
        struct Body: Encodable { var token: String; var deviceId: String }
        _ = try await send("POST", "/matches/\(Self.escape(matchId))/activity-token", body: Body(token: token, deviceId: deviceId))
    }

    func postActivityChannel(matchId: String, channelId: String, deviceId: String) async throws {
        struct Body: Encodable { var channelId: String; var deviceId: String }
        _ = try await send("POST", "/matches/\(Self.escape(matchId))/activity-token", body: Body(channelId: channelId, deviceId: deviceId))
    }

    func postActivityDismissed(matchId: String, deviceId: String) async throws {
        struct Body: Encodable { var deviceId: String }
        _ = try await send("POST", "/matches/\(Self.escape(matchId))/activity-dismissed", body: Body(deviceId: deviceId))
    }

    func fetchAppConfig() async throws -> AppConfig {
        /// The api answers `minVersion`; older drafts said `minimumVersion`.
        struct Wire: Decodable {
            var minVersion: String?
            var minimumVersion: String?
            var maintenance: Bool?
            var message: String?
        }
        let wire = try decode(Wire.self, try await send("GET", "/app/config"), path: "/app/config")
        let message = wire.message.flatMap { $0.isEmpty ? nil : $0 }
        return AppConfig(
            minimumVersion: wire.minVersion ?? wire.minimumVersion ?? "0.0.0", maintenance: wire.maintenance ?? false, message: message)
    }

    // MARK: - Transport

    private func send(_ method: String, _ path: String) async throws -> Data {
        try await send(method, path, bodyData: nil)
    }

    private func send(_ method: String, _ path: String, body: some Encodable) async throws -> Data {
        try await send(method, path, bodyData: try JSONEncoder().encode(body))
    }

    private func send(_ method: String, _ path: String, bodyData: Data?) async throws -> Data {
        guard let url = URL(string: baseURL + path) else { throw BackendHTTPError(method: method, path: path, status: 0, excerpt: "bad URL") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(try minter.token(userId: userId))", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let bodyData {
            request.httpBody = bodyData
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.dataIgnoringCancellation(for: request)
        } catch {
            throw BackendHTTPError(method: method, path: path, status: 0, excerpt: String(describing: error))
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw BackendHTTPError(method: method, path: path, status: status, excerpt: String(decoding: data.prefix(200), as: UTF8.self))
        }
        return data
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data, path: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw BackendHTTPError(method: "decode", path: path, status: 200, excerpt: String(decoding: data.prefix(200), as: UTF8.self))
        }
    }

    private static func escape(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? segment
    }
}

/// An api call that failed: transport error (status 0), non-2xx answer, or an undecodable body.
struct BackendHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    var method: String
    var path: String
    var status: Int
    /// The start of the answer body, or the transport error.
    var excerpt: String
    var description: String { "\(method) \(path) → \(status): \(excerpt)" }
}
