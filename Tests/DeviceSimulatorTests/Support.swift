@testable import DeviceSimulator
import ClientCore
import Contracts
import Foundation
import Runtime
import SharedTestSupport
import Synchronization
import Testing

/// An api stand-in recording every call; live follows answer `liveState` when set.
final class FakeBackend: BackendAPI {
    struct Calls {
        var registrations: [DeviceRegistration] = []
        var follows: [(matchId: String, deviceId: String)] = []
        var unfollows: [String] = []
        var tokens: [(matchId: String, token: String, deviceId: String)] = []
        var dismissals: [(matchId: String, deviceId: String)] = []
    }

    let calls = LockedValue(Calls())
    let liveState = LockedValue<UnifiedDisplayState?>(nil)
    let failFollows = LockedValue(false)

    func registerDevice(_ registration: DeviceRegistration) async throws { calls.withLock { $0.registrations.append(registration) } }

    func followMatch(matchId: String, deviceId: String) async throws -> FollowResponse {
        if failFollows.withLock({ $0 }) { throw BackendHTTPError(method: "POST", path: "/user/follow/match", status: 503, excerpt: "down") }
        calls.withLock { $0.follows.append((matchId, deviceId)) }
        return FollowResponse(displayState: liveState.withLock { $0 })
    }

    func unfollowMatch(matchId: String) async throws { calls.withLock { $0.unfollows.append(matchId) } }

    func listFollows() async throws -> FollowList {
        FollowList(follows: calls.withLock { calls in Set(calls.follows.map(\.matchId)).subtracting(calls.unfollows).map(FollowRecord.init) })
    }

    func postActivityToken(matchId: String, token: String, deviceId: String) async throws {
        calls.withLock { $0.tokens.append((matchId, token, deviceId)) }
    }

    func postActivityChannel(matchId: String, channelId: String, deviceId: String) async throws {
        calls.withLock { $0.tokens.append((matchId, "channel:" + channelId, deviceId)) }
    }

    func postActivityDismissed(matchId: String, deviceId: String) async throws {
        calls.withLock { $0.dismissals.append((matchId, deviceId)) }
    }

    func fetchAppConfig() async throws -> AppConfig { AppConfig(minimumVersion: "1.0.0", maintenance: false) }

    func tokens(deviceId: String) -> [(matchId: String, token: String)] {
        calls.withLock { $0.tokens.filter { $0.deviceId == deviceId }.map { ($0.matchId, $0.token) } }
    }
}

/// A mock-apns control API stand-in: a numbered delivery log and the unregistered tokens.
final class FakeMockAPNs: MockAPNsPort {
    private let log = LockedValue<[MockDelivery]>([])
    let unregistered = LockedValue<[String]>([])

    func deliver(token: String, payload: String) {
        log.withLock { $0.append(MockDelivery(sequence: $0.count + 1, token: token, payload: payload, pushType: "liveactivity")) }
    }

    /// A push as mock-apns records it with its priority and acceptance time (Unix ms).
    func deliver(token: String, payload: String, priority: Int, receivedAt: Int64) {
        log.withLock {
            $0.append(MockDelivery(sequence: $0.count + 1, token: token, payload: payload, pushType: "liveactivity",
                                   priority: priority, receivedAt: receivedAt))
        }
    }

    /// A broadcast's copy to `subscriber`, as mock-apns records it (the broadcast's request id, its channel).
    func deliverCopy(to subscriber: String, channelId: String, broadcast: String, payload: String) {
        log.withLock {
            $0.append(MockDelivery(sequence: $0.count + 1, token: subscriber, payload: payload, pushType: "liveactivity",
                                   apnsID: broadcast, channelId: channelId))
        }
    }

    func deliveries(since: Int, limit: Int) async throws -> [MockDelivery] {
        log.withLock { Array($0.filter { ($0.sequence ?? 0) > since }.prefix(limit)) }
    }

    func markUnregistered(token: String) async throws { unregistered.withLock { $0.append(token) } }

    let subscriptions = LockedValue<[(channelId: String, subscriber: String)]>([])

    func subscribe(channelId: String, subscriber: String) async throws { subscriptions.withLock { $0.append((channelId, subscriber)) } }

    /// A restarted mock-apns: empty log, sequences from 1 again.
    func restart() { log.withLock { $0 = [] } }
}

enum Sample {
    static let logger = Logger(label: "device-sim-test", minimumLevel: .error)

    /// A display state of `matchId` at `updatedAt` whose scores say `score`.
    static func state(_ matchId: String = "m1", updatedAt: Int64 = 1_800_000_000, score: String = "87/6",
                      phase: MatchPhase = .live, result: String? = nil) -> UnifiedDisplayState {
        let batting = UnifiedDisplayState.TeamScore(abbr: "IND", name: "India", score: score, overs: "12.3")
        let bowling = UnifiedDisplayState.TeamScore(abbr: "AUS", name: "Australia", score: "180/7", overs: "20")
        return UnifiedDisplayState(
            matchId: matchId, matchDisplayState: phase, title: "India vs Australia", subtitle: "1st T20I",
            statusText: "IND need 45 off 30", compactLeading: .init(teamAbbr: "IND", score: score),
            compactTrailing: .init(overs: "12.3", runRate: "6.96"), minimal: .init(text: score),
            expanded: .init(
                batting: batting, bowling: bowling,
                batters: [.init(name: "Rohit Sharma", score: "45 (32)", onStrike: true), .init(name: "Virat Kohli", score: "12 (9)", onStrike: false)],
                bowler: .init(name: "Pat Cummins", figures: "2-24 (3.4)"), lastBalls: ["1", "4", "W", "•", "1wd", "6"],
                target: "Target 181", equation: "Need 45 off 30", runRate: "RR 6.96", requiredRate: "RRR 9.00"),
            lockScreen: .init(headline: "IND \(score) (12.3)", detail: "AUS 180/7 (20)", footer: "IND need 45 off 30"),
            resultLine: result, updatedAt: updatedAt)
    }

    static func payload(_ event: LiveActivityPayload.Event, _ state: UnifiedDisplayState, timestamp: Int64? = nil) -> String {
        let time = timestamp ?? state.updatedAt
        let payload: LiveActivityPayload
        switch event {
        case .start:
            payload = .matchStart(state: state, timestamp: time)
        case .update:
            payload = LiveActivityPayload(event: .update, timestamp: time, contentState: state, staleDate: time + 1800)
        case .end:
            // Dismissal an hour from now (a past date would dismiss at once).
            payload = LiveActivityPayload(
                event: .end, timestamp: time, contentState: state, dismissalDate: max(time, Int64(Date().timeIntervalSince1970)) + 3600)
        }
        return try! payload.jsonString()
    }

    static func configuration(devices: Int, follow: [String] = [], channelShare: Double = 0, bannerSeconds: Double = 5)
        -> SimulatorConfiguration
    {
        var configuration = SimulatorConfiguration()
        configuration.alertBannerSeconds = bannerSeconds
        configuration.deviceCount = devices
        configuration.channelShare = channelShare
        configuration.follow = follow
        configuration.idPrefix = "t\(UInt32.random(in: 0...UInt32.max))"
        return configuration
    }
}

/// A fleet of `devices` on one fake backend, launched (following `follow`), with an intake over `mock`.
struct Harness {
    let backend = FakeBackend()
    let mock = FakeMockAPNs()
    let fleet: DeviceFleet
    let intake: DeliveryIntake

    init(devices: Int, follow: [String] = ["m1"], channelShare: Double = 0, bannerSeconds: Double = 5) async {
        let backend = self.backend
        fleet = DeviceFleet(configuration: Sample.configuration(devices: devices, follow: follow, channelShare: channelShare,
                                                                bannerSeconds: bannerSeconds)) { _ in backend }
        intake = DeliveryIntake(source: mock, fleet: fleet, batchLimit: 500, logger: Sample.logger)
        await fleet.launchAll(follow: follow, appVersion: "1.10.0", concurrency: 32, logger: Sample.logger)
    }

    /// Push-starts `matchId` on `device` and waits until its update token reached the api.
    func start(_ device: SimulatedDevice, _ state: UnifiedDisplayState) async throws -> String {
        mock.deliver(token: device.pushToStartToken, payload: Sample.payload(.start, state))
        try await intake.pollOnce()
        let backend = self.backend
        let posted = await eventually { !backend.tokens(deviceId: device.deviceId).filter { $0.matchId == state.matchId }.isEmpty }
        try #require(posted, "the update token of \(device.deviceId) was never posted")
        return try #require(backend.tokens(deviceId: device.deviceId).last { $0.matchId == state.matchId }?.token)
    }
}
