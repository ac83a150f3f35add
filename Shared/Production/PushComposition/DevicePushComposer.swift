import Contracts
import Foundation

/// Builds every single-device push: the push-to-start (orchestrator, rollover, a follow), the end of an activity
/// its user or device ended (unfollow, dismissal), the end of a rolled-over activity, and the background end of a
/// channel activity. Each has its job id (`PushJobID`), its priority and its expiration (`PushPolicy`) here.
///
/// Priorities: starts and ends are 10 (they change what the Lock Screen shows, and iOS throttles 10 only when a
/// budget is overspent); the background end is 5, the only priority APNs accepts for a background push.
public struct DevicePushComposer: Sendable {
    public var policy: PushPolicy

    public init(policy: PushPolicy) {
        self.policy = policy
    }

    /// The push-to-start body for `state` at `now` (to the second), subscribed to `channelId` when given.
    /// - Throws: `LiveActivityPayloadError` when the body cannot be encoded within 4,096 bytes.
    public func startPayload(state: UnifiedDisplayState, now: Date, channelId: String? = nil) throws(LiveActivityPayloadError) -> String {
        try LiveActivityPayload.matchStart(state: state, timestamp: Self.seconds(now), channelId: channelId).jsonString()
    }

    /// The `attempt`-th push-to-start of `device`, with an already encoded body (`startPayload`). `stateSeq` is the
    /// sequence of the display state in the body (0 when it is a fallback state).
    public func start(_ device: PushDevice, attempt: Int, payload: String, stateSeq: Int64, now: Date) -> PushJob {
        job(id: PushJobID.start(device, attempt: attempt), kind: .liveActivityStart, device: device, stateSeq: stateSeq,
            startAttempt: attempt, priority: 10, expiresAfter: policy.startExpiration, payload: payload, now: now)
    }

    /// The end of `device`'s activity (update token in `device.token`) because of `reason` (unfollow, dismissal…):
    /// shown with `state` and dismissed from the Lock Screen at once.
    /// - Throws: `LiveActivityPayloadError` when the body cannot be encoded.
    public func end(_ device: PushDevice, reason: String, state: UnifiedDisplayState, stateSeq: Int64, now: Date)
        throws(LiveActivityPayloadError) -> PushJob
    {
        job(id: PushJobID.end(device, reason: reason), kind: .liveActivityEnd, device: device, stateSeq: stateSeq,
            priority: 10, expiresAfter: policy.endExpiration, payload: try dismissedNow(state, now: now), now: now)
    }

    /// The end of a rolled-over activity (its update token in `device.token`), replaced by the start `attempt`:
    /// dismissed at once.
    /// - Throws: `LiveActivityPayloadError` when the body cannot be encoded.
    public func rolloverEnd(_ device: PushDevice, attempt: Int, state: UnifiedDisplayState, stateSeq: Int64, now: Date)
        throws(LiveActivityPayloadError) -> PushJob
    {
        job(id: PushJobID.rolloverEnd(device, attempt: attempt), kind: .liveActivityEnd, device: device, stateSeq: stateSeq,
            priority: 10, expiresAfter: policy.endExpiration, payload: try dismissedNow(state, now: now), now: now)
    }

    /// A background push (to the device's own push token) asking the app to end its channel activity of the match.
    public func backgroundEnd(_ device: PushDevice, reason: String, now: Date) -> PushJob {
        job(id: PushJobID.backgroundEnd(device, reason: reason), kind: .background, device: device, stateSeq: 0,
            priority: 5, expiresAfter: policy.endExpiration,
            payload: BackgroundEndPayload.json(matchId: device.matchId, reason: reason), now: now)
    }

    private func dismissedNow(_ state: UnifiedDisplayState, now: Date) throws(LiveActivityPayloadError) -> String {
        try LiveActivityPayload.dismissedNow(state: state, timestamp: Self.seconds(now)).jsonString()
    }

    private func job(id: String, kind: PushKind, device: PushDevice, stateSeq: Int64, startAttempt: Int? = nil, priority: Int,
                     expiresAfter: Int64, payload: String, now: Date) -> PushJob {
        PushJob(jobId: id, kind: kind, matchId: device.matchId, stateSeq: stateSeq, startAttempt: startAttempt, priority: priority,
                expiration: Self.seconds(now) + expiresAfter, relevanceScore: nil, payload: payload, targets: [device.target],
                createdAt: Int64(now.timeIntervalSince1970 * 1000))
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970) }
}
