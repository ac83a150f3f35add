import Contracts
import Foundation

/// Where a broadcast channel row is in its life (`broadcast_channels.state`, migration 9):
///
///     (none), invalid, failed ──create sent──▶ CREATING ──201──▶ ACTIVE
///     CREATING ──refused (limit, capability, …)──▶ FAILED          (tried again after a pause)
///     ACTIVE ──ChannelNotRegistered / BadChannelId / missing from the list──▶ INVALID
///     any but DELETED ──match over + grace──▶ DELETING ──204 or ChannelNotRegistered──▶ DELETED
public enum BroadcastChannelState: String, Sendable, CaseIterable {
    case creating, active, invalid, failed, deleting, deleted
}

/// One (match, APNs environment) channel row.
public struct BroadcastChannel: Sendable, Equatable {
    public var matchId: String
    public var environment: APNsEnvironment
    /// `apns-channel-id` (opaque base64); nil until a create is answered.
    public var channelId: String?
    /// 0 No Message Stored, 1 Most Recent Message Stored.
    public var storagePolicy: Int
    public var state: BroadcastChannelState
    /// Creates of this row so far (1 for the first).
    public var generation: Int
    /// APNs's reason of the last refused create (FAILED) or of the invalidation (INVALID).
    public var failureReason: String?
    public var updatedAt: Date
    /// When the manager first saw the match over.
    public var matchEndedAt: Date?

    public init(matchId: String, environment: APNsEnvironment, channelId: String?, storagePolicy: Int, state: BroadcastChannelState,
                generation: Int, failureReason: String? = nil, updatedAt: Date, matchEndedAt: Date? = nil) {
        self.matchId = matchId
        self.environment = environment
        self.channelId = channelId
        self.storagePolicy = storagePolicy
        self.state = state
        self.generation = generation
        self.failureReason = failureReason
        self.updatedAt = updatedAt
        self.matchEndedAt = matchEndedAt
    }
}
