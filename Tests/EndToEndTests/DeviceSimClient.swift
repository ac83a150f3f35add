import Contracts
import PipelineTestSupport
import SharedTestSupport
import DevStack
import Foundation

/// device-sim's HTTP API as the test uses it (E2E-INTERFACE.md).
struct DeviceSimClient {
    struct Activity: Decodable, Equatable {
        var matchId: String
        var state: String
        var timestamp: Int64
        var contentState: UnifiedDisplayState
        var token: String?
        var channelId: String?
    }

    struct Device: Decodable, Equatable {
        var deviceId: String
        var userId: String
        var follows: [String]
        var activities: [Activity]
        var pushesReceived: Int
        var updatesReceived: Int
        var endsReceived: Int
        /// "channel" or "token".
        var mode: String
        var channelCopiesReceived: Int
        var repeatedChannelCopies: Int

        var onChannels: Bool { mode == "channel" }
        func activity(_ match: String) -> Activity? { activities.last { $0.matchId == match } }
    }

    let baseURL: String
    let http = DevHTTP(timeout: 5)

    func devices() async throws -> [Device] {
        try await http.getJSON(baseURL + "/devices")
    }

    func device(_ id: String) async throws -> Device {
        try await http.getJSON(baseURL + "/devices/\(id)")
    }

    /// POST /devices/:id/<action>?match=…
    func act(_ action: String, device: String, match: String) async throws {
        let url = "\(baseURL)/devices/\(device)/\(action)?match=\(match)"
        let reply = try await http.post(url)
        guard (200..<300).contains(reply.status) else { throw PipelineTestFailure("\(url): HTTP \(reply.status) \(reply.text.prefix(200))") }
    }
}

extension DevStack {
    /// The detector's display state of `matchId` once it carries a result line (the match is over), else nil.
    func finalDisplayState(_ matchId: String) async throws -> UnifiedDisplayState? {
        let rows = try await postgres.query("SELECT display_state::text FROM active_matches WHERE match_id = $1", [matchId])
        guard let text = try rows.first?.decode(0, as: String.self) else { return nil }
        let state = try JSONDecoder().decode(UnifiedDisplayState.self, from: Data(text.utf8))
        return state.resultLine == nil ? nil : state
    }
}
