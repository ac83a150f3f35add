import Contracts
import Foundation

/// Owns Live Activity instances (seeds: `LiveActivityLifecycleManager`): local requests, adoption
/// of push-started activities, dismissal reporting, restore on relaunch, content updates in
/// timestamp order, end events, and the 30-minute stale check (which honours a later `stale-date`:
/// during lunch, tea or rain the backend sends one beyond the break, when no update comes for a
/// while and the activity must stay). One activity per match: a
/// push-started activity replaces an older one of the same match (the backend only push-starts
/// when it has no live record, e.g. after token_invalid).
public actor LifecycleManager {
    /// An activity with no update for this long (seconds) is ended.
    public static let staleInterval: Double = 30 * 60

    private struct Entry {
        var handle: any LiveActivityHandle
        var origin: ActivityOrigin
        var lastApplied: Int64
        var latestContent: ActivityContent?
        var lastUpdateAt: Date
        /// The `stale-date` of the latest applied update, if it had one.
        var staleUntil: Date?
        var stateObserver: Task<Void, Never>
    }

    private let deviceId: String
    private let api: any BackendAPI
    private let activityKit: any ActivityKitPort
    private let clock: any ClientClock
    private let retry: RetryPolicy
    private let events: ClientEventSink
    private let onEvent: @Sendable (LifecycleEvent) async -> Void
    private var entries: [String: Entry] = [:]
    private var adoption: Task<Void, Never>?
    private var staleLoop: Task<Void, Never>?

    public init(
        deviceId: String, api: any BackendAPI, activityKit: any ActivityKitPort, clock: any ClientClock,
        retry: RetryPolicy, events: ClientEventSink = .none,
        onEvent: @escaping @Sendable (LifecycleEvent) async -> Void = { _ in }
    ) {
        self.deviceId = deviceId
        self.api = api
        self.activityKit = activityKit
        self.clock = clock
        self.retry = retry
        self.events = events
        self.onEvent = onEvent
    }

    // MARK: - Starting

    /// `Activity.request(pushType: .token)` with `initialState`; returns the activity id (the
    /// existing one when the match already has an activity).
    @discardableResult
    /// With `channelId` the activity subscribes to the match's broadcast channel (`.channel(id)`, iOS 18+).
    public func request(matchId: String, initialState: UnifiedDisplayState, channelId: String? = nil)
        async throws(LiveActivityStartError) -> String
    {
        if let entry = entries[matchId] { return entry.handle.id }
        guard await activityKit.areActivitiesEnabled() else {
            await startFailed(matchId, reason: "Live Activities are disabled")
            throw .disabled(matchId: matchId)
        }
        let handle: any LiveActivityHandle
        do {
            let content = ActivityContent(state: initialState, timestamp: initialState.updatedAt)
            handle = try await activityKit.request(matchId: matchId, content: content, pushType: channelId.map { .channel($0) } ?? .token)
        } catch {
            await startFailed(matchId, reason: String(describing: error))
            throw .requestFailed(matchId: matchId, reason: String(describing: error))
        }
        if let existing = entries[matchId] {
            // A push-started activity arrived while requesting: it wins.
            if existing.handle.id != handle.id { await endDuplicate(handle) }
            return existing.handle.id
        }
        await track(handle, origin: .localRequest, lastApplied: initialState.updatedAt)
        return handle.id
    }

    /// Starts observing `Activity.activityUpdates` to adopt push-started activities.
    public func startAdopting() {
        guard adoption == nil else { return }
        let updates = activityKit.activityUpdates
        adoption = Task { [weak self] in
            for await handle in updates { await self?.adopt(handle) }
        }
    }

    /// Claims an activity the system created from a push-to-start; returns whether it is now tracked.
    @discardableResult
    public func adopt(_ handle: any LiveActivityHandle) async -> Bool {
        if entries[handle.matchId]?.handle.id == handle.id { return false }
        let state = await handle.state()
        guard state == .active || state == .stale else { return false }
        let content = await handle.content()
        if entries[handle.matchId]?.handle.id == handle.id { return false }
        if let old = entries.removeValue(forKey: handle.matchId) {
            old.stateObserver.cancel()
            events.emit(.duplicateActivityEnded(matchId: handle.matchId, activityId: old.handle.id))
            await onEvent(.ended(matchId: handle.matchId, activityId: old.handle.id, reason: .system))
            await old.handle.end(nil, dismissalPolicy: .immediate)
        }
        await track(handle, origin: .pushToStart, lastApplied: content.timestamp)
        return true
    }

    /// Relaunch: re-attaches to every surviving activity, then runs the stale check (the last
    /// update time of a restored activity is its content timestamp). Returns the restored match ids.
    @discardableResult
    public func restore() async -> [String] {
        var restored: [String] = []
        for handle in await activityKit.activities() {
            guard entries[handle.matchId] == nil else { continue }
            let state = await handle.state()
            guard state == .active || state == .stale else { continue }
            let content = await handle.content()
            guard entries[handle.matchId] == nil else { continue }
            let lastUpdate = Date(timeIntervalSince1970: TimeInterval(content.timestamp))
            await track(handle, origin: .restored, lastApplied: content.timestamp, lastUpdateAt: lastUpdate)
            restored.append(handle.matchId)
        }
        await runStaleCheck()
        return restored
    }

    // MARK: - Content

    /// Applies a received push: an `update` older than the last applied content is ignored (equal
    /// timestamps apply); an `end` ends the activity with its final content and dismissal date.
    @discardableResult
    public func apply(_ push: ActivityPush) async -> PushApplyResult {
        guard push.event != .start, var entry = entries[push.matchId] else { return .notTracked }
        if push.event == .end {
            await finish(push.matchId, content: push.content, policy: dismissalPolicy(push.dismissalDate), reason: .endEvent)
            return .ended
        }
        guard push.timestamp >= entry.lastApplied else {
            events.emit(.updateIgnored(matchId: push.matchId, timestamp: push.timestamp, lastApplied: entry.lastApplied))
            return .ignoredOlder(lastApplied: entry.lastApplied)
        }
        entry.lastApplied = push.timestamp
        entry.latestContent = push.content
        entry.lastUpdateAt = clock.now()
        entry.staleUntil = push.staleDate.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        entries[push.matchId] = entry
        let handle = entry.handle
        await handle.update(push.content)
        // A newer update applied while this one was suspended must stay on screen.
        if let now = entries[push.matchId], now.handle.id == handle.id, let latest = now.latestContent,
            latest.timestamp > push.timestamp
        {
            await handle.update(latest)
        }
        events.emit(.updateApplied(matchId: push.matchId, timestamp: push.timestamp))
        return .applied
    }

    // MARK: - Ending

    /// Ends the activity of `matchId` locally (user unfollow): immediate dismissal, no dismissal report.
    public func end(matchId: String, reason: ActivityEndReason = .userUnfollow) async {
        await finish(matchId, content: nil, policy: .immediate, reason: reason)
    }

    /// Ends every activity without an update for `staleInterval` (at exactly 30:00 too) whose latest
    /// update's `stale-date`, if any, has passed too; returns their matches.
    @discardableResult
    public func runStaleCheck() async -> [String] {
        let now = clock.now()
        let stale = entries.filter { _, entry in
            now.timeIntervalSince(entry.lastUpdateAt) >= Self.staleInterval && entry.staleUntil.map { now >= $0 } ?? true
        }.keys.sorted()
        for matchId in stale { await finish(matchId, content: nil, policy: .default, reason: .stale) }
        return stale
    }

    /// Runs the stale check every `interval` seconds until `stopAll`.
    public func startStaleCheckLoop(interval: Double = 60) {
        guard staleLoop == nil else { return }
        let clock = self.clock
        staleLoop = Task { [weak self] in
            while !Task.isCancelled {
                do { try await clock.sleep(seconds: interval) } catch { return }
                await self?.runStaleCheck()
            }
        }
    }

    /// Cancels every observer and loop (the app is going away); activities stay alive.
    public func stopAll() {
        adoption?.cancel()
        adoption = nil
        staleLoop?.cancel()
        staleLoop = nil
        for entry in entries.values { entry.stateObserver.cancel() }
        entries = [:]
    }

    // MARK: - Queries

    /// The tracked activities, by match id.
    public var trackedActivities: [TrackedActivity] {
        entries.values.map {
            TrackedActivity(matchId: $0.handle.matchId, activityId: $0.handle.id, origin: $0.origin, lastAppliedTimestamp: $0.lastApplied)
        }.sorted { $0.matchId < $1.matchId }
    }

    /// Whether `matchId` has a tracked activity.
    public func hasActivity(matchId: String) -> Bool { entries[matchId] != nil }

    // MARK: - Internals

    private func track(
        _ handle: any LiveActivityHandle, origin: ActivityOrigin, lastApplied: Int64, lastUpdateAt: Date? = nil
    ) async {
        let states = handle.activityStateUpdates
        let activityId = handle.id
        let matchId = handle.matchId
        let observer = Task { [weak self] in
            for await state in states {
                guard let keepObserving = await self?.stateChanged(state, matchId: matchId, activityId: activityId),
                    keepObserving
                else { break }
            }
        }
        entries[matchId] = Entry(
            handle: handle, origin: origin, lastApplied: lastApplied, latestContent: nil,
            lastUpdateAt: lastUpdateAt ?? clock.now(), staleUntil: nil, stateObserver: observer)
        events.emit(.activityStarted(matchId: matchId, activityId: activityId, origin: origin))
        await onEvent(.started(handle, origin: origin))
    }

    /// Handles one state change on the activity's own observer task (so it must not cancel
    /// that task: the dismissal report would be cancelled too); returns whether to keep observing.
    private func stateChanged(_ state: ActivityState, matchId: String, activityId: String) async -> Bool {
        guard let entry = entries[matchId], entry.handle.id == activityId else { return false }
        switch state {
        case .active, .stale:
            return true
        case .ended:
            entries[matchId] = nil
            events.emit(.activityEnded(matchId: matchId, activityId: activityId, reason: .system))
            await onEvent(.ended(matchId: matchId, activityId: activityId, reason: .system))
        case .dismissed:
            entries[matchId] = nil
            let api = self.api
            let deviceId = self.deviceId
            let outcome = await retry.run(clock: clock) { try await api.postActivityDismissed(matchId: matchId, deviceId: deviceId) }
            events.emit(.activityDismissedByUser(matchId: matchId, activityId: activityId, reported: outcome.succeeded))
            await onEvent(.ended(matchId: matchId, activityId: activityId, reason: .system))
            await onEvent(.dismissedByUser(matchId: matchId, activityId: activityId))
        }
        return false
    }

    private func finish(_ matchId: String, content: ActivityContent?, policy: ActivityDismissalPolicy, reason: ActivityEndReason) async {
        guard let entry = untrack(matchId) else { return }
        events.emit(.activityEnded(matchId: matchId, activityId: entry.handle.id, reason: reason))
        await onEvent(.ended(matchId: matchId, activityId: entry.handle.id, reason: reason))
        await entry.handle.end(content, dismissalPolicy: policy)
    }

    @discardableResult
    private func untrack(_ matchId: String) -> Entry? {
        guard let entry = entries.removeValue(forKey: matchId) else { return nil }
        entry.stateObserver.cancel()
        return entry
    }

    private func endDuplicate(_ handle: any LiveActivityHandle) async {
        events.emit(.duplicateActivityEnded(matchId: handle.matchId, activityId: handle.id))
        await handle.end(nil, dismissalPolicy: .immediate)
    }

    private func startFailed(_ matchId: String, reason: String) async {
        events.emit(.activityStartFailed(matchId: matchId, reason: reason))
        await onEvent(.startFailed(matchId: matchId))
    }

    private func dismissalPolicy(_ dismissalDate: Int64?) -> ActivityDismissalPolicy {
        guard let dismissalDate else { return .default }
        let date = Date(timeIntervalSince1970: TimeInterval(dismissalDate))
        return date <= clock.now() ? .immediate : .after(date)
    }
}
