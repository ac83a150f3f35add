import ClientCore
import Contracts
import Synchronization
import Runtime

/// The backend routes the client calls.
enum Route: String, Sendable {
    case devices, follow, unfollow, listFollows, activityToken, dismissed, config
}

/// The error a scripted failure throws.
struct FakeAPIError: Error, Equatable {
    var route: Route
}

/// A recorded `POST /matches/:matchId/activity-token`.
struct TokenPost: Equatable {
    var matchId: String
    var token: String
    var deviceId: String
}

/// An in-memory backend: records every call (failed attempts too), fails routes on demand, and
/// can hold follow calls in flight.
final class FakeBackendAPI: BackendAPI {
    struct State {
        var failuresLeft: [Route: Int] = [:]
        var calls: [Route] = []
        var devices: [DeviceRegistration] = []
        var follows: [String] = []
        var unfollows: [String] = []
        var tokens: [TokenPost] = []
        /// Channel activities reported (`token` is the channel id).
        var channels: [TokenPost] = []
        var dismissed: [String] = []
        var serverFollows: [String] = []
        var followResponse = FollowResponse()
        var config = AppConfig(minimumVersion: "1.0.0", maintenance: false)
        var holdFollows = false
        var held: [CheckedContinuation<Void, Never>] = []
    }

    let state = LockedValue(State())

    /// Makes the next `times` calls of `route` throw.
    func fail(_ route: Route, times: Int = .max) { state.withLock { $0.failuresLeft[route] = times } }

    func set(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }

    var snapshot: State { state.withLock { $0 } }

    func calls(_ route: Route) -> Int { state.withLock { $0.calls.filter { $0 == route }.count } }

    /// Releases every held follow call.
    func releaseFollows() {
        let held = state.withLock { state in
            state.holdFollows = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    private func attempt(_ route: Route) throws {
        try state.withLock { state in
            state.calls.append(route)
            if let left = state.failuresLeft[route], left > 0 {
                state.failuresLeft[route] = left - 1
                throw FakeAPIError(route: route)
            }
        }
    }

    func registerDevice(_ registration: DeviceRegistration) async throws {
        try attempt(.devices)
        state.withLock { $0.devices.append(registration) }
    }

    func followMatch(matchId: String, deviceId: String) async throws -> FollowResponse {
        await withCheckedContinuation { continuation in
            let held = state.withLock { state in
                if state.holdFollows { state.held.append(continuation) }
                return state.holdFollows
            }
            if !held { continuation.resume() }
        }
        try attempt(.follow)
        return state.withLock { state in
            state.follows.append(matchId)
            if !state.serverFollows.contains(matchId) { state.serverFollows.append(matchId) }
            return state.followResponse
        }
    }

    func unfollowMatch(matchId: String) async throws {
        try attempt(.unfollow)
        state.withLock { state in
            state.unfollows.append(matchId)
            state.serverFollows.removeAll { $0 == matchId }
        }
    }

    func listFollows() async throws -> FollowList {
        try attempt(.listFollows)
        return state.withLock { FollowList(follows: $0.serverFollows.map(FollowRecord.init(matchId:))) }
    }

    func postActivityToken(matchId: String, token: String, deviceId: String) async throws {
        try attempt(.activityToken)
        state.withLock { $0.tokens.append(TokenPost(matchId: matchId, token: token, deviceId: deviceId)) }
    }

    func postActivityChannel(matchId: String, channelId: String, deviceId: String) async throws {
        try attempt(.activityToken)
        state.withLock { $0.channels.append(TokenPost(matchId: matchId, token: channelId, deviceId: deviceId)) }
    }

    func postActivityDismissed(matchId: String, deviceId: String) async throws {
        try attempt(.dismissed)
        state.withLock { state in
            state.dismissed.append("\(matchId)/\(deviceId)")
            state.serverFollows.removeAll { $0 == matchId }
        }
    }

    func fetchAppConfig() async throws -> AppConfig {
        try attempt(.config)
        return state.withLock { $0.config }
    }
}
