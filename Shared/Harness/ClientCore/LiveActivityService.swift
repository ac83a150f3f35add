import Contracts
import Foundation

/// The facade the UI (or a simulated device) talks to (seeds: `LiveActivityService`). It composes
/// `TokenManager`, `LifecycleManager` and `FollowManager`, which share no mutable state: the
/// facade routes lifecycle events to the other two and sequences user actions across them.
public final class LiveActivityService: LaunchTasks {
    public let configuration: ClientConfiguration
    /// Exposed for inspection (simulator progress, tests); the UI should use the facade methods.
    public let tokens: TokenManager
    public let lifecycle: LifecycleManager
    public let follows: FollowManager
    public let notifications: NotificationService
    private let activityKit: any ActivityKitPort

    public init(
        configuration: ClientConfiguration, api: any BackendAPI, activityKit: any ActivityKitPort,
        store: any KeyValueStore, clock: any ClientClock, events: ClientEventSink = .none
    ) {
        let deviceId = configuration.identity.deviceId
        let notifications = NotificationService(identity: configuration.identity, api: api, retry: configuration.retry, clock: clock)
        let tokens = TokenManager(
            deviceId: deviceId, api: api, notifications: notifications, retry: configuration.retry, clock: clock, events: events)
        let follows = FollowManager(deviceId: deviceId, api: api, store: store, events: events)
        self.configuration = configuration
        self.notifications = notifications
        self.tokens = tokens
        self.follows = follows
        self.activityKit = activityKit
        lifecycle = LifecycleManager(
            deviceId: deviceId, api: api, activityKit: activityKit, clock: clock, retry: configuration.retry, events: events
        ) { event in
            await Self.route(event, tokens: tokens, follows: follows)
        }
    }

    // MARK: - Launch (AppBootstrap)

    /// Posts `POST /devices` with the current tokens.
    public func registerDevice() async {
        _ = await notifications.registerDevice()
    }

    /// Retries queued unfollows, then reconciles with `GET /user/follows`.
    public func syncFollows() async throws {
        try await follows.sync()
    }

    /// Starts observing push-to-start tokens and push-started activities, re-attaches to surviving
    /// activities (running the stale check) and starts the periodic stale check.
    public func restoreLiveActivities() async throws {
        await refreshLiveActivitiesPermission()
        await tokens.observePushToStartTokens(activityKit.pushToStartTokenUpdates)
        await lifecycle.startAdopting()
        await lifecycle.restore()
        if configuration.staleCheckInterval > 0 {
            await lifecycle.startStaleCheckLoop(interval: configuration.staleCheckInterval)
        }
    }

    // MARK: - User actions

    /// Follows `matchId` (bell tap). For a live match, also requests the Live Activity locally
    /// when configured; a failed start leaves the follow in place with a warning bell.
    /// Throws `FollowError.requestFailed` (the follow is rolled back).
    @discardableResult
    public func follow(matchId: String) async throws -> BellState {
        let enabled = await refreshLiveActivitiesPermission()
        let response = try await follows.follow(matchId: matchId)
        if configuration.requestLocallyOnLiveFollow, enabled, let state = response.displayState,
            state.matchDisplayState != .ended
        {
            _ = try? await lifecycle.request(matchId: matchId, initialState: state,
                                             channelId: configuration.identity.supportsBroadcastChannels ? response.channelId : nil)
        }
        return await follows.bellState(matchId: matchId)
    }

    /// Unfollows `matchId` (bell tap): local state, `DELETE` (queued when it fails), and the local
    /// activity ends at once.
    @discardableResult
    public func unfollow(matchId: String) async -> UnfollowOutcome {
        let outcome = await follows.unfollow(matchId: matchId)
        await lifecycle.end(matchId: matchId, reason: .userUnfollow)
        return outcome
    }

    /// The bell icon of `matchId`.
    public func bellState(matchId: String) async -> BellState {
        await follows.bellState(matchId: matchId)
    }

    /// The locally followed matches.
    public func followedMatchIds() async -> Set<String> {
        await follows.followedMatchIds
    }

    // MARK: - System events

    /// A Live Activity push reached this device (`update` or `end`; a `start` is the system's job:
    /// the activity it creates is adopted through `activityUpdates`).
    @discardableResult
    public func receive(_ push: ActivityPush) async -> PushApplyResult {
        await lifecycle.apply(push)
    }

    /// A background notification arrived (`didReceiveRemoteNotification`). `BackgroundEndPayload` — the user
    /// unfollowed or dismissed the match on another device — ends the match's activity here at once and forgets the
    /// follow locally (the backend removed it already). Returns false for any other notification (nothing changes).
    public func receiveBackgroundNotification(_ payload: [UInt8]) async -> Bool {
        struct Body: Decodable {
            struct Sightscreen: Decodable { var type: String; var matchId: String }
            var sightscreen: Sightscreen?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(payload)), let end = body.sightscreen,
              end.type == BackgroundEndPayload.type, !end.matchId.isEmpty else { return false }
        await lifecycle.end(matchId: end.matchId, reason: .remoteEnd)
        await follows.applyRemoteUnfollow(matchId: end.matchId)
        return true
    }

    /// The APNs device token arrived or rotated.
    public func updateDevicePushToken(_ token: String) async {
        _ = await notifications.updatePushToken(token)
    }

    /// App came to the foreground: stale check now. Returns the matches whose activity ended.
    @discardableResult
    public func runStaleCheck() async -> [String] {
        await lifecycle.runStaleCheck()
    }

    /// Re-reads the Live Activities permission into the bell state; returns it.
    @discardableResult
    public func refreshLiveActivitiesPermission() async -> Bool {
        let enabled = await activityKit.areActivitiesEnabled()
        await follows.setLiveActivitiesEnabled(enabled)
        return enabled
    }

    /// The app is terminating: stops every observer and loop (activities and stored state survive).
    public func shutdown() async {
        await lifecycle.stopAll()
        await tokens.stopAll()
    }

    private static func route(_ event: LifecycleEvent, tokens: TokenManager, follows: FollowManager) async {
        switch event {
        case .started(let handle, _):
            if let channel = handle.channelId {
                await tokens.reportChannel(channel, matchId: handle.matchId)
            } else {
                await tokens.observeUpdateTokens(of: handle)
            }
            await follows.markStarted(matchId: handle.matchId)
        case .ended(_, let activityId, _):
            await tokens.stopObserving(activityId: activityId)
        case .dismissedByUser(let matchId, _):
            await follows.applyRemoteUnfollow(matchId: matchId)
        case .startFailed(let matchId):
            await follows.markStartFailed(matchId: matchId)
        }
    }
}
