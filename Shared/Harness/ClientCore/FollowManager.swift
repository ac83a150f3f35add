/// Owns the user's follow intent (seeds: `FollowManager`): optimistic local state persisted in the
/// key/value store at once, follow/unfollow API calls, a persisted pending-unfollow queue retried
/// on the next launch, sync from `GET /user/follows`, and the bell state of each match.
public actor FollowManager {
    /// Key of the followed match ids in the store.
    public static let followedKey = "followedMatchIds"
    /// Key of the queued unfollows in the store.
    public static let pendingUnfollowsKey = "pendingUnfollows"

    private let deviceId: String
    private let api: any BackendAPI
    private let store: any KeyValueStore
    private let events: ClientEventSink

    private var followed: Set<String>
    private var pendingUnfollows: [String]
    private var inFlight: [String: Int] = [:]
    private var startFailures: Set<String> = []
    private var liveActivitiesEnabled = true

    public init(deviceId: String, api: any BackendAPI, store: any KeyValueStore, events: ClientEventSink = .none) {
        self.deviceId = deviceId
        self.api = api
        self.store = store
        self.events = events
        followed = Set(store.strings(forKey: Self.followedKey) ?? [])
        pendingUnfollows = store.strings(forKey: Self.pendingUnfollowsKey) ?? []
    }

    /// Match ids the user follows (local truth, for instant UI).
    public var followedMatchIds: Set<String> { followed }

    /// Unfollows waiting to reach the server, oldest first.
    public var queuedUnfollows: [String] { pendingUnfollows }

    /// Whether `matchId` is followed locally.
    public func isFollowing(_ matchId: String) -> Bool { followed.contains(matchId) }

    /// The bell icon for `matchId`.
    public func bellState(matchId: String) -> BellState {
        if inFlight[matchId, default: 0] > 0 { return .pending }
        guard followed.contains(matchId) else { return .notFollowing }
        if !liveActivitiesEnabled || startFailures.contains(matchId) { return .followingWithWarning }
        return .following
    }

    /// Follows `matchId`: local state first, then `POST /user/follow/match`. On failure the local
    /// follow is rolled back and `FollowError.requestFailed` is thrown.
    public func follow(matchId: String) async throws -> FollowResponse {
        followed.insert(matchId)
        pendingUnfollows.removeAll { $0 == matchId }
        persist()
        begin(matchId)
        defer { end(matchId) }
        do {
            let response = try await api.followMatch(matchId: matchId, deviceId: deviceId)
            events.emit(.followConfirmed(matchId: matchId))
            return response
        } catch {
            followed.remove(matchId)
            persist()
            events.emit(.followFailed(matchId: matchId, reason: String(describing: error)))
            throw FollowError.requestFailed(matchId: matchId, reason: String(describing: error))
        }
    }

    /// Unfollows `matchId`: local state first, then `DELETE /user/follow/match`; a failed DELETE
    /// is queued and retried on the next launch (`retryPendingUnfollows`, `sync`).
    @discardableResult
    public func unfollow(matchId: String) async -> UnfollowOutcome {
        followed.remove(matchId)
        startFailures.remove(matchId)
        persist()
        begin(matchId)
        defer { end(matchId) }
        do {
            try await api.unfollowMatch(matchId: matchId)
            events.emit(.unfollowConfirmed(matchId: matchId))
            return .confirmed
        } catch {
            if !pendingUnfollows.contains(matchId) { pendingUnfollows.append(matchId) }
            persist()
            events.emit(.unfollowQueued(matchId: matchId, reason: String(describing: error)))
            return .queued
        }
    }

    /// Retries every queued unfollow once; returns the ones still queued.
    @discardableResult
    public func retryPendingUnfollows() async -> [String] {
        for matchId in pendingUnfollows {
            do {
                try await api.unfollowMatch(matchId: matchId)
                pendingUnfollows.removeAll { $0 == matchId }
                persist()
                events.emit(.unfollowConfirmed(matchId: matchId))
            } catch {
                continue
            }
        }
        return pendingUnfollows
    }

    /// Launch sync: retries queued unfollows, then takes `GET /user/follows` as the truth, minus
    /// unfollows still queued. Throws `FollowError.syncFailed` when the list cannot be fetched.
    public func sync() async throws {
        await retryPendingUnfollows()
        let list: FollowList
        do {
            list = try await api.listFollows()
        } catch {
            throw FollowError.syncFailed(reason: String(describing: error))
        }
        followed = list.matchIds.subtracting(pendingUnfollows)
        startFailures.formIntersection(followed)
        persist()
        events.emit(.followsSynced(matchIds: followed.sorted()))
    }

    /// The backend already unfollowed `matchId` (the user dismissed its Live Activity): local only.
    public func applyRemoteUnfollow(matchId: String) {
        followed.remove(matchId)
        startFailures.remove(matchId)
        persist()
    }

    /// Records whether Live Activities are enabled on this device (warning badge when not).
    public func setLiveActivitiesEnabled(_ enabled: Bool) { liveActivitiesEnabled = enabled }

    /// The Live Activity of `matchId` could not be started (warning badge).
    public func markStartFailed(matchId: String) { startFailures.insert(matchId) }

    /// The Live Activity of `matchId` started: clears the warning.
    public func markStarted(matchId: String) { startFailures.remove(matchId) }

    private func begin(_ matchId: String) { inFlight[matchId, default: 0] += 1 }

    private func end(_ matchId: String) {
        inFlight[matchId, default: 1] -= 1
        if inFlight[matchId] == 0 { inFlight[matchId] = nil }
    }

    private func persist() {
        store.setStrings(followed.sorted(), forKey: Self.followedKey)
        store.setStrings(pendingUnfollows, forKey: Self.pendingUnfollowsKey)
    }
}

/// How an unfollow went.
public enum UnfollowOutcome: Sendable, Equatable {
    /// The server confirmed it.
    case confirmed
    /// The request failed; it is queued for the next launch.
    case queued
}

/// Follow failures, carrying the failing input.
public enum FollowError: Error, Sendable, Equatable {
    /// `POST /user/follow/match` failed; the local follow was rolled back.
    case requestFailed(matchId: String, reason: String)
    /// `GET /user/follows` failed; local state is unchanged.
    case syncFailed(reason: String)
}
