import ClientCore
import Foundation

/// What the user (or the system) does to a device, as the control routes ask.
extension SimulatedDevice {
    /// The result of a swipe-to-dismiss.
    struct DismissResult: Codable, Sendable, Equatable {
        var deviceId: String
        var matchId: String
        var activityId: String
        /// The api acknowledged `POST /matches/:matchId/activity-dismissed`.
        var reported: Bool
    }

    /// The user swipes away the activity of `matchId`; waits (at most `timeout`) until the
    /// dismissal was reported to the api. nil when the match has no active activity.
    func dismiss(matchId: String, timeout: Duration = .seconds(15)) async -> DismissResult? {
        guard let activity = latestActivity(matchId: matchId), activity.currentState == .active || activity.currentState == .stale
        else { return nil }
        let mark = events.mark
        activity.dismissByUser()
        let event = await events.wait(after: mark, timeout: timeout) { event in
            if case .activityDismissedByUser(let match, let id, _) = event { return match == matchId && id == activity.id }
            return false
        }
        var reported = false
        if case .activityDismissedByUser(_, _, let ok) = event { reported = ok }
        return DismissResult(deviceId: deviceId, matchId: matchId, activityId: activity.id, reported: reported)
    }

    /// The user taps the bell of a followed match.
    func unfollow(matchId: String) async -> UnfollowOutcome {
        await service.unfollow(matchId: matchId)
    }

    /// The user taps the bell of an unfollowed match. Throws `FollowError` when the api refuses.
    func follow(matchId: String) async throws -> BellState {
        let bell = try await service.follow(matchId: matchId)
        subscribeChannelActivities()  // an in-app start on the match's channel
        return bell
    }

    /// The Live Activities switch in Settings.
    func setLiveActivitiesEnabled(_ enabled: Bool) async {
        kit.enabled = enabled
        await service.refreshLiveActivitiesPermission()
    }

    /// The update token of the newest activity of `matchId`, if it has one.
    func updateToken(matchId: String) -> String? {
        latestActivity(matchId: matchId)?.currentToken
    }
}
