import Contracts
import PushComposition
import FanOut
import Runtime
import ServiceKit

/// Everything the la-coordinator reads from the environment, read once at start (see `init(_:)`).
public struct CoordinatorConfiguration: Sendable {
    public var infrastructure = InfrastructureOptions()
    /// `LA_EVENTS_TOPIC` (default `match.events`); `LA_TOKEN_INVALID_TOPIC`, `LA_DEAD_LETTER_TOPIC` and the
    /// jobs topic `LA_JOBS_TOPIC` likewise (defaults from Contracts; benchmarks and tests use their own).
    public var eventsTopic = Topic.matchEvents.name
    public var tokenInvalidTopic = Topic.tokenInvalid.name
    public var deadLetterTopic = Topic.deadLetter.name
    /// `LA_EVENTS_GROUP_ID` (default "la-coordinator").
    public var eventsGroup = "la-coordinator"
    /// `LA_TOKEN_INVALID_GROUP_ID` (default "la-coordinator-token-invalid"): a group of its own so that
    /// a long fan-out never delays ending dead tokens, and each topic's lag is visible on its own.
    public var tokenInvalidGroup = "la-coordinator-token-invalid"
    /// `LA_OUTCOMES_TOPIC` (default `push.outcomes`) and `LA_RECORD_GROUP_ID` (default "la-coordinator-delivery-record"):
    /// the delivery recorder's input and group (its own, so the record's lag never holds up the fan-out).
    public var outcomesTopic = Topic.pushOutcomes.name
    public var recordGroup = "la-coordinator-delivery-record"
    /// `LA_RECORD_MAX_OUTCOMES` (32): most outcomes (each up to 1,000 pushes) folded and written in one transaction (bounds the
    /// recorder's memory: about 1 kB per push in hand).
    public var recordMaximumOutcomes = 32
    /// `LA_RECORD_MAX_DELAY_MS` (60,000): how long the recorder may hold a batch back while apns-sender still sends this
    /// replica's fan-outs (pushes first); 0 writes at once.
    public var recordMaximumDelay: Duration = .seconds(60)
    /// Topic, `PUSH_SHARDS`, `FANOUT_FETCH_ROWS`, `FANOUT_MAX_IN_FLIGHT`.
    public var fanOut = FanOutSettings()
    /// `PUSH_EXPIRATION_SECONDS`, `KEY_PUSH_EXPIRATION_SECONDS`, `END_PUSH_EXPIRATION_SECONDS`,
    /// `STALE_AFTER_SECONDS`, `BREAK_STALE_AFTER_SECONDS`, `DISMISS_AFTER_SECONDS`,
    /// `CLOSE_OF_PLAY_DISMISS_AFTER_SECONDS`.
    public var policy = PushPolicy()
    /// Live Activity management (orchestrator, rollover, TTL sweep, broadcast channels) and its leader lock.
    public var management = ActivityManagementConfiguration()
    /// `LA_COALESCE_MAX_EVENTS`: most events taken off `match.events` in one latest-wins batch.
    public var coalesceMaximumEvents = 500
    /// `LA_COALESCE_WAIT_MS`: how long each extra poll of a batch waits (0: only what is already fetched).
    public var coalesceWait: Duration = .zero
    /// `LA_PLAIN_UPDATE_SPACING_MS` (1,000) and `LA_PLAIN_UPDATE_MAX_HOLD_MS` (30,000): the overload rule
    /// (`PlainUpdateGate`): a plain update of a match whose previous fan-out apns-sender is still sending waits for it,
    /// then as long again (at least the spacing); never longer than the hold bound after that fan-out began.
    /// A hold bound of 0 turns the rule off (every event is fanned out at once, as before issue 31).
    public var plainUpdates = PlainUpdateGate.Settings()
    /// `LA_SENDER_GROUP` (default "apns-sender"): apns-sender's consumer group, whose commits on the jobs topic say
    /// when a fan-out has been sent.
    public var senderGroup = "apns-sender"
    /// `LA_SENDER_PROGRESS_INTERVAL_MS` (200): how often that group's commits are read while an update is held.
    public var senderProgressInterval: Duration = .milliseconds(200)

    public init() {}

    /// Reads and validates the environment; errors name the variable.
    public init(_ environment: EnvironmentReader) throws(ConfigurationError) {
        infrastructure = try InfrastructureOptions(environment)
        eventsTopic = try environment.topic("LA_EVENTS_TOPIC", default: eventsTopic)
        tokenInvalidTopic = try environment.topic("LA_TOKEN_INVALID_TOPIC", default: tokenInvalidTopic)
        deadLetterTopic = try environment.topic("LA_DEAD_LETTER_TOPIC", default: deadLetterTopic)
        fanOut.topic = try environment.topic("LA_JOBS_TOPIC", default: fanOut.topic)
        eventsGroup = environment.string("LA_EVENTS_GROUP_ID", default: eventsGroup)
        tokenInvalidGroup = environment.string("LA_TOKEN_INVALID_GROUP_ID", default: tokenInvalidGroup)
        outcomesTopic = try environment.topic("LA_OUTCOMES_TOPIC", default: outcomesTopic)
        recordGroup = environment.string("LA_RECORD_GROUP_ID", default: recordGroup)
        recordMaximumOutcomes = try environment.int("LA_RECORD_MAX_OUTCOMES", default: recordMaximumOutcomes, in: 1...10_000)
        recordMaximumDelay = try environment.milliseconds("LA_RECORD_MAX_DELAY_MS", default: recordMaximumDelay, in: 0...600_000)
        fanOut.shards = try environment.int("PUSH_SHARDS", default: PushSharding.defaultShards, in: 1...4096)
        fanOut.fetchRows = try environment.int("FANOUT_FETCH_ROWS", default: fanOut.fetchRows, in: 100...100_000)
        fanOut.maximumInFlight = try environment.int("FANOUT_MAX_IN_FLIGHT", default: fanOut.maximumInFlight, in: 1...10_000)
        policy = try PushPolicy(environment)
        management = try ActivityManagementConfiguration(environment)
        coalesceMaximumEvents = try environment.int("LA_COALESCE_MAX_EVENTS", default: coalesceMaximumEvents, in: 1...10_000)
        coalesceWait = try environment.milliseconds("LA_COALESCE_WAIT_MS", default: coalesceWait, in: 0...5000)
        plainUpdates.minimumSpacing = try environment.milliseconds("LA_PLAIN_UPDATE_SPACING_MS", default: plainUpdates.minimumSpacing,
                                                                   in: 0...600_000)
        plainUpdates.maximumHold = try environment.milliseconds("LA_PLAIN_UPDATE_MAX_HOLD_MS", default: plainUpdates.maximumHold,
                                                                in: 0...600_000)
        senderGroup = environment.string("LA_SENDER_GROUP", default: senderGroup)
        senderProgressInterval = try environment.milliseconds("LA_SENDER_PROGRESS_INTERVAL_MS", default: senderProgressInterval,
                                                              in: 50...10_000)
    }
}
