import BroadcastChannels
import Contracts
import PushComposition
import Foundation
import Kafka
import LiveActivities
import Postgres
import Runtime

/// Settings of the fan-out of one event.
public struct FanOutSettings: Sendable, Equatable {
    /// Where jobs go (`push.jobs`).
    public var topic: String
    /// The shard count (`PUSH_SHARDS`): the same in every producer of push jobs.
    public var shards: Int
    /// Rows per cursor `FETCH`.
    public var fetchRows: Int
    /// Jobs awaiting their delivery report at once.
    public var maximumInFlight: Int
    /// Targets per job (≤ 1,000).
    public var targetsPerJob: Int

    public init(topic: String = Topic.pushJobs.name, shards: Int = PushSharding.defaultShards, fetchRows: Int = 5000,
                maximumInFlight: Int = 64, targetsPerJob: Int = PushJob.maximumTargets) {
        self.topic = topic
        self.shards = shards
        self.fetchRows = fetchRows
        self.maximumInFlight = maximumInFlight
        self.targetsPerJob = targetsPerJob
    }
}

/// What one fan-out did.
public struct FanOutResult: Sendable, Equatable {
    /// Broadcast jobs produced (one per environment with an active channel).
    public var broadcasts = 0
    /// Token jobs produced.
    public var jobs = 0
    public var targets = 0
    /// Wall time of the whole fan-out (stream, encode, produce, acknowledgements).
    public var seconds = 0.0
    /// Time spent inside the row callback: sharding, encoding and handing jobs to the producer.
    public var handlingSeconds = 0.0
    /// The highest offset of this fan-out's jobs per partition of the jobs topic (broadcast jobs included): once
    /// apns-sender's group has committed past each, every job of the event has a final answer.
    public var highestOffsets: [Int32: Int64] = [:]

    public init() {}
}

/// Produces one broadcast job per environment where the match has an ACTIVE broadcast channel (keyed
/// "matchId:bc:env"; apns-sender makes it one request to every subscriber), then streams the match's active
/// update tokens through a cursor — the token-mode activities; a channel activity has no update token — groups
/// them by shard, and produces one `PushJob` per chunk of ≤ 1,000 targets keyed "matchId:shard", awaiting every
/// acknowledgement.
///
/// Memory is bounded by `shards × targetsPerJob` buffered targets, one fetch of rows, and
/// `maximumInFlight` encoded jobs — never the whole set.
public struct FanOutExecutor: Sendable {
    public let database: PostgresClient
    public let producer: KafkaProducer
    public let settings: FanOutSettings
    public let clock: any WallClock

    public init(database: PostgresClient, producer: KafkaProducer, settings: FanOutSettings, clock: any WallClock = SystemWallClock()) {
        self.database = database
        self.producer = producer
        self.settings = settings
        self.clock = clock
    }

    /// Fans `plan` out to every active row of its match; returns once every job is acknowledged.
    /// - Throws: `PostgresError` from the stream, `KafkaError` from a delivery; nothing is partial-committed
    ///   by this type, so the caller retries the whole event (same job ids).
    public func fanOut(_ plan: EventPushPlan) async throws -> FanOutResult {
        let started = ContinuousClock.now
        let now = Int64((clock.now().timeIntervalSince1970 * 1000).rounded(.down))
        var planner = FanOutPlanner(shards: settings.shards, maximumTargets: settings.targetsPerJob)
        var window = JobWindow(producer: producer, topic: settings.topic, limit: settings.maximumInFlight)
        var result = FanOutResult()
        var handling: Duration = .zero
        for channel in try await BroadcastChannelStore(database: database).channels(matchId: plan.matchId) where channel.state == .active {
            guard let channelId = channel.channelId else { continue }
            try await window.submit(
                key: PushJob.broadcastKey(matchId: plan.matchId, environment: channel.environment),
                value: PushJobEncoder.encode(plan.broadcastJob(
                    channelId: channelId, environment: channel.environment, storagePolicy: channel.storagePolicy,
                    generation: channel.generation, nowMilliseconds: now)))
            result.broadcasts += 1
        }
        try await LiveActivityStore(database: database).forEachActiveActivity(matchId: plan.matchId, batchSize: settings.fetchRows) { activity in
            guard let chunk = planner.add(PushTarget(activity)) else { return }
            let begin = ContinuousClock.now
            try await window.submit(key: plan.key(shard: chunk.shard),
                                    value: PushJobEncoder.encode(plan.job(for: chunk, nowMilliseconds: now)))
            result.jobs += 1
            handling += ContinuousClock.now - begin
        }
        for chunk in planner.finish() {
            try await window.submit(key: plan.key(shard: chunk.shard),
                                    value: PushJobEncoder.encode(plan.job(for: chunk, nowMilliseconds: now)))
            result.jobs += 1
        }
        try await window.finish()
        result.targets = planner.targetCount
        result.highestOffsets = window.highestOffsets
        result.seconds = (ContinuousClock.now - started).seconds
        result.handlingSeconds = handling.seconds
        return result
    }
}
