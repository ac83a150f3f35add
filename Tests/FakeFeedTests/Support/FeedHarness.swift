import SharedTestSupport
import Contracts
import CricsheetReplay
import FakeFeed
import Foundation
import Runtime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A fake SportMonks server on a free loopback port with a manual clock, and a tiny HTTP client.
struct FeedHarness {
    let server: FakeSportMonksServer
    let clock: ManualWallClock
    var feed: FakeFeed { server.feed }
    var base: String { "http://127.0.0.1:\(server.port)" }

    static let logger = Logger(label: "fake-feed-tests", minimumLevel: .warning)

    init(ids: [Int] = DataDirectory.matchIds, configuration: FakeFeedConfiguration = FakeFeedConfiguration()) throws {
        clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let matches = try ids.map(DataDirectory.match)
        server = FakeSportMonksServer(feed: FakeFeed(matches: matches, configuration: configuration, clock: clock),
                                      port: 0, logger: Self.logger)
        try server.start()
    }

    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data
        var json: JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: body) }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// One request over real HTTP.
    func request(_ pathAndQuery: String, admin: Bool = false) async throws -> Reply {
        try await request("GET", pathAndQuery, admin: admin)
    }

    /// One request with `method` over real HTTP.
    func request(_ method: String, _ pathAndQuery: String, body: String? = nil, admin: Bool = false) async throws -> Reply {
        var request = URLRequest(url: URL(string: base + pathAndQuery)!)
        request.httpMethod = method
        if admin { request.setValue(feed.configuration.adminToken, forHTTPHeaderField: "X-Admin-Token") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.dataIgnoringCancellation(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
        return Reply(status: http.statusCode, headers: headers, body: data)
    }

    /// GET an API path with the right token.
    func api(_ path: String, _ query: String = "") async throws -> Reply {
        let token = "api_token=\(feed.configuration.apiToken)"
        return try await request("\(path)?\(token)\(query.isEmpty ? "" : "&" + query)")
    }

    /// The ids and statuses in a livescores reply.
    func live(include: String = "") async throws -> [Int: String] {
        let reply = try await api("/api/v2.0/livescores", include.isEmpty ? "" : "include=\(include)")
        guard case .array(let items)? = reply.json?["data"] else { return [:] }
        var result: [Int: String] = [:]
        for item in items {
            if case .int(let id)? = item["id"], case .string(let status)? = item["status"] { result[id] = status }
        }
        return result
    }

    /// Stops the server without waiting (for `defer`s).
    func stop() { server.stopInBackground() }
}
