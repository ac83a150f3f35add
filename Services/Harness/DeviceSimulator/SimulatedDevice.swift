import ClientCore
import Contracts
import Foundation
import Runtime
import Synchronization

/// One simulated iPhone: the seeds' client logic (`LiveActivityService`) over its own
/// `InMemoryActivityKit` and store, its tokens, and what it has received.
final class SimulatedDevice: Sendable {
    /// Launch progress.
    enum LaunchState: String, Sendable {
        case pending, ready, blocked, failed
    }

    private struct Stats {
        var pushes = 0
        var starts = 0
        var updates = 0
        var ends = 0
        var other = 0
        var channelCopies = 0
        var repeatedChannelCopies = 0
        var copiesSeen: Set<String> = []
        /// Newest last, at most `timelineLength`.
        var timeline: [PushRecord] = []
        var banner: AlertBanner?
        var lastEvent: String?
        var lastMatchId: String?
        var launch = LaunchState.pending
    }

    let index: Int
    let deviceId: String
    let userId: String
    let deviceToken: String
    let pushToStartToken: String
    let kit: InMemoryActivityKit
    let service: LiveActivityService
    let events: DeviceEventLog
    /// An iOS 18 device whose build subscribes to broadcast channels ("channel" mode); else a token device.
    let supportsChannels: Bool
    private let directory: TokenDirectory
    private let subscribed = LockedValue<Set<String>>([])
    private let api: any BackendAPI
    private let stats = LockedValue(Stats())
    /// How long an alert banner stays up (iOS: a few seconds).
    let bannerDuration: Duration
    let clock: any WallClock
    static let timelineLength = 20

    /// Creates the device and issues its tokens into `directory`.
    init(
        index: Int, deviceId: String, userId: String, api: any BackendAPI, directory: TokenDirectory,
        environment: APNsEnvironment, appVersion: String, requestLocally: Bool, supportsChannels: Bool = false,
        retry: RetryPolicy = RetryPolicy(maxAttempts: 4, initialDelay: 0.5), bannerDuration: Duration = .seconds(5),
        clock: any WallClock = SystemWallClock()
    ) {
        self.bannerDuration = bannerDuration
        self.clock = clock
        self.supportsChannels = supportsChannels
        self.directory = directory
        self.index = index
        self.deviceId = deviceId
        self.userId = userId
        self.api = api
        deviceToken = HexToken.random(length: 64)
        pushToStartToken = HexToken.random(length: 160)
        directory.register(deviceToken, deviceIndex: index, kind: .device)
        directory.register(pushToStartToken, deviceIndex: index, kind: .pushToStart)
        kit = InMemoryActivityKit { _ in
            let token = HexToken.random(length: 160)
            directory.register(token, deviceIndex: index, kind: .update)
            return token
        }
        kit.issuePushToStartToken(pushToStartToken)
        let events = DeviceEventLog()
        self.events = events
        service = LiveActivityService(
            configuration: ClientConfiguration(
                identity: DeviceIdentity(deviceId: deviceId, apnsEnvironment: environment, appVersion: appVersion,
                                         osVersion: supportsChannels ? "18.2" : "17.5", supportsBroadcastChannels: supportsChannels),
                retry: retry,
                requestLocallyOnLiveFollow: requestLocally, staleCheckInterval: 60),
            api: api, activityKit: kit, store: InMemoryKeyValueStore(), clock: SystemClientClock(), events: events.sink)
    }

    var launchState: LaunchState { stats.withLock { $0.launch } }

    // MARK: - Launch

    /// Runs the app launch (retrying while the api is unreachable, at most `attempts` times), posts
    /// the device token, waits for the push-to-start token to be registered, then follows `follow`.
    func launch(follow: [String], appVersion: String, attempts: Int = 60, logger: Logger) async -> LaunchState {
        let bootstrap = AppBootstrap(
            config: AppConfigService(api: api, appVersion: appVersion), auth: FixedAuthSessionProvider(AuthSession(userId: userId)),
            tasks: service, events: events.sink)
        var outcome = await bootstrap.run()
        var attempt = 1
        while case .failed(let phase, let reason) = outcome, attempt < attempts {
            if attempt == 1 || attempt % 10 == 0 {
                logger.warning("launch failed, retrying", ["device": deviceId, "phase": phase.rawValue, "reason": reason])
            }
            do { try await Task.sleep(for: .seconds(1)) } catch { break }
            attempt += 1
            outcome = await bootstrap.run()
        }
        switch outcome {
        case .blocked(let reason):
            logger.error("launch blocked", ["device": deviceId, "reason": String(describing: reason)])
            return setLaunch(.blocked)
        case .failed(let phase, let reason):
            logger.error("launch failed", ["device": deviceId, "phase": phase.rawValue, "reason": reason])
            return setLaunch(.failed)
        case .ready:
            break
        }
        await service.updateDevicePushToken(deviceToken)
        let deadline = ContinuousClock.now + .seconds(30)
        while await service.tokens.lastSentPushToStartToken != pushToStartToken, ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { break }
        }
        for matchId in follow {
            await self.follow(matchId: matchId, attempts: 5, logger: logger)
        }
        return setLaunch(.ready)
    }

    private func follow(matchId: String, attempts: Int, logger: Logger) async {
        for attempt in 1...attempts {
            do {
                _ = try await service.follow(matchId: matchId)
                return
            } catch {
                if attempt == attempts {
                    logger.error("follow failed", ["device": deviceId, "match_id": matchId, "reason": String(describing: error)])
                    return
                }
                try? await Task.sleep(for: .milliseconds(500 * attempt))
            }
        }
    }

    private func setLaunch(_ state: LaunchState) -> LaunchState {
        stats.withLock { $0.launch = state }
        return state
    }

    // MARK: - Deliveries

    /// What a delivery did.
    enum Disposition: Sendable, Equatable {
        case started
        case startRefused
        case applied(PushApplyResult)
        /// A Live Activity push on a token kind that does not take it (iOS drops it).
        case ignored
        /// Not a Live Activity push (an alert) or undecodable.
        case other
    }

    /// Handles one push mock-apns accepted for a token of this device; `copyOf` is the broadcast's request id when
    /// the push is a broadcast's copy to a channel activity (a second copy of one broadcast is counted as repeated).
    @discardableResult
    func receive(payload: String, kind: DeliveryTokenKind, copyOf broadcast: String? = nil, priority: Int? = nil, acceptedAt: Int64? = nil)
        async -> Disposition
    {
        let bytes = Array(payload.utf8)
        // A background push on the device token: the user ended the match on another device (channel activities).
        let background = kind == .device ? await service.receiveBackgroundNotification(bytes) : false
        let push = background ? nil : try? ActivityPush.decode(apnsPayload: bytes)
        let disposition = await apply(push, kind: kind, background: background, copyOf: broadcast)
        record(push, bytes: bytes.count, kind: kind, background: background, disposition: disposition, priority: priority,
               acceptedAt: acceptedAt)
        return disposition
    }

    /// Adds the push to the timeline; a priority-10 push with an alert raises the banner.
    private func record(_ push: ActivityPush?, bytes: Int, kind: DeliveryTokenKind, background: Bool, disposition: Disposition, priority: Int?,
                        acceptedAt: Int64?) {
        let now = Int64(clock.now().timeIntervalSince1970 * 1000)
        let name: String = switch disposition {
        case .started: "start"
        case .startRefused: "refused start"
        case .ignored: "ignored"
        case .other: background ? "background end" : "alert"
        case .applied: push?.event.rawValue ?? "update"
        }
        let via: String = switch kind {
        case .pushToStart: "push-to-start"
        case .update: "token"
        case .channel: "channel"
        case .device: "device"
        }
        let entry = PushRecord(
            kind: name, via: via, priority: priority, bytes: bytes,
            ageMs: push.flatMap { push in acceptedAt.map { $0 - push.timestamp * 1000 } }, at: now,
            alertTitle: push?.alert?.title, alertBody: push?.alert?.body)
        stats.withLock { stats in
            stats.timeline.append(entry)
            if stats.timeline.count > Self.timelineLength { stats.timeline.removeFirst(stats.timeline.count - Self.timelineLength) }
            if priority == 10, let alert = push?.alert, disposition != .ignored, disposition != .startRefused {
                stats.banner = AlertBanner(title: alert.title, body: alert.body, shownAt: now)
            }
        }
    }

    /// What the push does to the device: `push` is the decoded Live Activity push (nil: not one), `background` a
    /// background end the notification handling already applied.
    private func apply(_ push: ActivityPush?, kind: DeliveryTokenKind, background: Bool, copyOf broadcast: String?) async -> Disposition {
        if kind == .channel {
            stats.withLock { stats in
                stats.channelCopies += 1
                if let broadcast, !stats.copiesSeen.insert(broadcast).inserted { stats.repeatedChannelCopies += 1 }
            }
        }
        if background {
            stats.withLock { stats in
                stats.pushes += 1
                stats.other += 1
                stats.lastEvent = "background end"
            }
            return .other
        }
        guard let push else {
            stats.withLock { stats in
                stats.pushes += 1
                stats.other += 1
                stats.lastEvent = "alert"
            }
            return .other
        }
        stats.withLock { stats in
            stats.pushes += 1
            switch push.event {
            case .start: stats.starts += 1
            case .update: stats.updates += 1
            case .end: stats.ends += 1
            }
            stats.lastEvent = "\(push.event.rawValue) \(push.matchId) @\(push.timestamp)"
            stats.lastMatchId = push.matchId
        }
        switch (push.event, kind) {
        case (.start, .pushToStart):
            // As iOS: a start naming another type, or attributes the type cannot decode, starts nothing; iOS 17
            // starts nothing on a channel.
            if let refusal = push.startRefusal ?? (push.inputPushChannel != nil && !supportsChannels ? "a channel start on iOS 17" : nil) {
                stats.withLock { $0.lastEvent = "start refused: \(refusal)" }
                return .startRefused
            }
            guard kit.startFromPush(matchId: push.matchId, content: push.content, channelId: push.inputPushChannel) != nil else { return .startRefused }
            subscribeChannelActivities()
            return .started
        case (.update, .update), (.end, .update), (.update, .channel), (.end, .channel):
            return .applied(await service.receive(push))
        default:
            return .ignored
        }
    }

    /// Subscribes, at the mock, every running channel activity not subscribed yet (its copies then route here).
    func subscribeChannelActivities() {
        for activity in kit.allActivities where activity.currentState == .active {
            guard let channel = activity.channelId, subscribed.withLock({ $0.insert(activity.id).inserted }) else { continue }
            directory.subscribe(channelId: channel, deviceIndex: index)
        }
    }

    // MARK: - Views

    /// The banner while it is up.
    private func visibleBanner(_ banner: AlertBanner?) -> AlertBanner? {
        guard let banner else { return nil }
        let now = Int64(clock.now().timeIntervalSince1970 * 1000)
        return now - banner.shownAt < bannerDuration.wholeMilliseconds ? banner : nil
    }

    /// The newest activity of `matchId`.
    func latestActivity(matchId: String) -> InMemoryActivity? { kit.activities(matchId: matchId).last }

    /// The match the preview shows by default: the last one a push was about, else the newest activity's.
    var defaultMatchId: String? {
        stats.withLock { $0.lastMatchId } ?? kit.allActivities.last?.matchId
    }

    func snapshot() async -> DeviceSnapshot {
        let follows = await service.followedMatchIds().sorted()
        var latest: [String: InMemoryActivity] = [:]
        for activity in kit.allActivities { latest[activity.matchId] = activity }
        let activities = latest.values.sorted { $0.matchId < $1.matchId }.map { activity in
            let content = activity.currentContent
            return ActivitySnapshot(
                matchId: activity.matchId, activityId: activity.id, state: activity.currentState.rawValue, timestamp: content.timestamp,
                contentState: content.state, updateCount: activity.updateCount, token: activity.currentToken,
                startedByPush: activity.startedByPush, channelId: activity.channelId)
        }
        let stats = self.stats.withLock { $0 }
        return DeviceSnapshot(
            deviceId: deviceId, userId: userId, follows: follows, activities: activities, pushesReceived: stats.pushes,
            lastEvent: stats.lastEvent, startsReceived: stats.starts, updatesReceived: stats.updates, endsReceived: stats.ends,
            otherReceived: stats.other, liveActivitiesEnabled: kit.enabled, launch: stats.launch.rawValue, deviceToken: deviceToken,
            pushToStartToken: pushToStartToken, mode: supportsChannels ? "channel" : "token",
            channelCopiesReceived: stats.channelCopies, repeatedChannelCopies: stats.repeatedChannelCopies,
            recentPushes: stats.timeline.reversed(), banner: visibleBanner(stats.banner))
    }
}
