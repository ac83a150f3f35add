import BroadcastChannels
import Postgres

/// The statuses, end reasons, delivery modes and channel states the live-activity stores' statements name, as SQL
/// literals spelt from their enums (`sqlLiteral`): a statement cannot name a value the enums do not have.
enum Literal {
    static let pending = LiveActivityStatus.pending.sqlLiteral
    static let active = LiveActivityStatus.active.sqlLiteral
    static let ended = LiveActivityStatus.ended.sqlLiteral
    static let matchEnd = LiveActivityEndReason.matchEnd.sqlLiteral
    static let dayEnd = LiveActivityEndReason.dayEnd.sqlLiteral
    static let tokenInvalid = LiveActivityEndReason.tokenInvalid.sqlLiteral
    static let userUnfollow = LiveActivityEndReason.userUnfollow.sqlLiteral
    static let userDismissed = LiveActivityEndReason.userDismissed.sqlLiteral
    static let tokenMode = LiveActivityDeliveryMode.token.sqlLiteral
    static let channelMode = LiveActivityDeliveryMode.channel.sqlLiteral
    static let channelActive = BroadcastChannelState.active.sqlLiteral
    static let channelCreating = BroadcastChannelState.creating.sqlLiteral
    static let channelInvalid = BroadcastChannelState.invalid.sqlLiteral
    /// `broadcast_channels.failure_reason` of a create APNs left unanswered.
    static let createUnanswered = "'\(BroadcastChannelStore.createUnansweredReason)'"
}
