import APNs
import Contracts
import Foundation
import Runtime
import ServiceKit

/// Everything apns-sender reads from the environment, read and validated in one place at start.
/// A bad value throws a `ConfigurationError` naming the variable (never the key's contents).
public struct SenderConfiguration: Sendable {
    /// `APNS_TEAM_ID`: the Apple developer team (JWT `iss`).
    public var teamID: String
    /// `APNS_KEY_ID`: the key id of the .p8 (JWT `kid`).
    public var keyID: String
    /// `APNS_KEY_PATH`: the .p8 file (PKCS#8 PEM P-256 private key).
    public var keyPath: String
    /// `APNS_BUNDLE_ID`: the app bundle id (topic).
    public var bundleID: String
    /// `APNS_PRODUCTION_HOST` / `APNS_PRODUCTION_PORT`.
    public var production: APNsEndpoint
    /// `APNS_SANDBOX_HOST` / `APNS_SANDBOX_PORT`.
    public var sandbox: APNsEndpoint
    /// `APNS_CA_FILE`: PEM CA to trust instead of the system CAs (mock-apns).
    public var caFile: String?
    /// `APNS_CONNECTIONS`: HTTP/2 connections per APNs host.
    public var connections: Int
    /// `APNS_MAX_STREAMS`: upper bound on concurrent streams per connection.
    public var maxStreams: Int
    /// `APNS_REQUEST_TIMEOUT_MS`: one request without an answer after this long is retried.
    public var requestTimeout: Duration
    /// `APNS_SENDER_MAX_JOBS`: jobs processed concurrently (each up to 1,000 targets; 4 keeps
    /// 4,000 pushes queued for 2 × 1,000 streams at about 110 MB RSS).
    public var maxInFlightJobs: Int
    /// `APNS_SENDER_MAX_WAITING_JOBS`: jobs that may wait between retry rounds without a sending
    /// slot (`JobSet`), on top of `maxInFlightJobs`. A waiting job holds only its payload and its
    /// unanswered targets (≤ 1,000 × about 200 bytes), so 32 of them cost a few MB. 0: a job waits
    /// holding its slot.
    public var maxWaitingJobs = 32
    /// `APNS_SENDER_LOOKAHEAD_JOBS` (32): jobs read off the topic ahead of the free sending slots, in which a
    /// priority-10 job overtakes plain updates and a plain update of a key that began a newer state is dropped
    /// (`JobLookahead`). Each holds up to 1,000 targets (≈ 250 KB): 32 cost about 8 MB.
    public var lookaheadJobs = 32
    /// `APNS_SENDER_PREFETCH_KB` (16,384): push jobs librdkafka may hold pre-fetched, in kilobytes (≈ 70 jobs of
    /// 1,000 targets). librdkafka's 64 MB default held ≈ 270 such jobs and put apns-sender over 200 MB at 1 M.
    public var prefetchKilobytes = 16_384
    /// `APNS_RETRY_MAX_ATTEMPTS`, `APNS_RETRY_BASE_MS`, `APNS_RETRY_MAX_MS`: the sender's retry
    /// policy for 429/500/503/connection loss (the APNs client itself makes a single attempt).
    /// Default 15 attempts, 200 ms doubling to 5 s: about a minute of throttling is ridden out, and
    /// the job's expiration still stops retries earlier (updates 120 s). The attempt limit applies
    /// to priority-5 updates only: priority-10 pushes (key events 900 s, ends 3,600 s) are retried
    /// until their expiration (`RetryScheduler`).
    public var retry: APNsRetryPolicy
    /// `APNS_SENDER_GROUP`: the consumer group.
    public var groupID: String
    /// `APNS_SENDER_JOBS_TOPIC`, `APNS_SENDER_TOKEN_INVALID_TOPIC`, `APNS_SENDER_DEAD_TOPIC`
    /// (defaults: the `Topic` names; tests use their own).
    public var jobsTopic: String
    public var tokenInvalidTopic: String
    public var deadTopic: String
    /// `APNS_SENDER_DEAD_LETTER_TOPIC`: where undecodable messages on the jobs topic are parked.
    public var deadLetterTopic = Topic.deadLetter.name
    /// `APNS_SENDER_OUTCOMES_TOPIC`: where each job's outcome goes (`PushOutcome`, for the delivery record).
    public var outcomesTopic = Topic.pushOutcomes.name
    /// `APNS_SENDER_PROGRESS_TOPIC` (push.progress): where apns-sender marks the targets APNs answered and the jobs
    /// that are final (`PushProgress`), read back by the member that takes over a jobs partition so that a crash does
    /// not send them again. `off` (empty here): no marks (every unfinished job is sent whole again after a crash).
    public var progressTopic = Topic.pushProgress.name
    /// `APNS_SENDER_PROGRESS_CHUNK` (64): answers per answered mark (reported by the HTTP/2 client as they come).
    public var progressChunk = 64
    /// `APNS_SENDER_PROGRESS_LOOKBACK_S` (120): how far back the marks are read after an assignment. A job still
    /// unfinished this long after its first marks (a long back-off) is sent whole again; a longer window reads more
    /// marks before the new partitions start.
    public var progressLookback: Duration = .seconds(120)
    /// `APNS_SENDER_ENDED_MEMORY_S` (900): how long a device's update token is remembered after the latest round of an
    /// end push of its activity began, so that no later update of its key goes to it, nor another end once APNs accepted
    /// the first (`SendOrder`). At least the longest expiration of an update (`KEY_PUSH_EXPIRATION_SECONDS`, 900): an
    /// update made before the end may be sent until then. About 50 bytes per token.
    public var endedMemory: Duration = .seconds(900)
    /// `APNS_SENDER_PROGRESS_READ_MS` (5000): the most the read of the marks may take after an assignment (no job of
    /// the new partitions starts meanwhile); past it the partitions start without their marks.
    public var progressReadTimeout: Duration = .seconds(5)
    /// `APNS_SENDER_PROGRESS_READ_MAX_MB` (64): the most marks read after an assignment; past it the rest of the
    /// partitions' jobs are sent as they are.
    public var progressReadMaxBytes = 64 << 20
    /// `SHUTDOWN_GRACE_MS` (from `ServiceOptions`): how long in-flight jobs may take after SIGTERM.
    public var shutdownGrace: Duration
    /// `KAFKA_BROKERS`, `KAFKA_SESSION_TIMEOUT_MS`, `KAFKA_HEARTBEAT_INTERVAL_MS`.
    public var infrastructure: InfrastructureOptions

    public init(
        teamID: String, keyID: String, keyPath: String, bundleID: String, production: APNsEndpoint = .production,
        sandbox: APNsEndpoint = .sandbox, caFile: String? = nil, connections: Int = 2, maxStreams: Int = 1000,
        requestTimeout: Duration = .seconds(10), maxInFlightJobs: Int = 4,
        retry: APNsRetryPolicy = APNsRetryPolicy(maxAttempts: 15, baseDelay: .milliseconds(200), maxDelay: .seconds(5)),
        groupID: String = "apns-sender", jobsTopic: String = Topic.pushJobs.name,
        tokenInvalidTopic: String = Topic.tokenInvalid.name, deadTopic: String = Topic.dead.name,
        shutdownGrace: Duration = .seconds(10),
        infrastructure: InfrastructureOptions = InfrastructureOptions()
    ) {
        self.teamID = teamID
        self.keyID = keyID
        self.keyPath = keyPath
        self.bundleID = bundleID
        self.production = production
        self.sandbox = sandbox
        self.caFile = caFile
        self.connections = connections
        self.maxStreams = maxStreams
        self.requestTimeout = requestTimeout
        self.maxInFlightJobs = maxInFlightJobs
        self.retry = retry
        self.groupID = groupID
        self.jobsTopic = jobsTopic
        self.tokenInvalidTopic = tokenInvalidTopic
        self.deadTopic = deadTopic
        self.shutdownGrace = shutdownGrace
        self.infrastructure = infrastructure
    }

    /// Reads every variable (see the property docs); `shutdownGrace` comes from `ServiceOptions`.
    public init(_ environment: EnvironmentReader, shutdownGrace: Duration) throws(ConfigurationError) {
        let infrastructure = try InfrastructureOptions(environment)
        let credentials = try APNsCredentials(environment)
        let baseDelay = try environment.milliseconds("APNS_RETRY_BASE_MS", default: .milliseconds(200), in: 1...60_000)
        let maxDelay = try environment.milliseconds("APNS_RETRY_MAX_MS", default: .seconds(5), in: 1...600_000)
        guard maxDelay >= baseDelay else {
            throw .invalid(variable: "APNS_RETRY_MAX_MS", value: environment.raw("APNS_RETRY_MAX_MS") ?? "5000",
                           expected: "at least APNS_RETRY_BASE_MS")
        }
        func topic(_ name: String, _ fallback: Topic) throws(ConfigurationError) -> String {
            try environment.topic(name, default: fallback.name)
        }
        self.init(
            teamID: credentials.teamID, keyID: credentials.keyID, keyPath: credentials.keyPath, bundleID: credentials.bundleID,
            production: try APNsEndpoint.read("APNS_PRODUCTION", default: .production, from: environment),
            sandbox: try APNsEndpoint.read("APNS_SANDBOX", default: .sandbox, from: environment),
            caFile: credentials.caFile,
            connections: try environment.int("APNS_CONNECTIONS", default: 2, in: 1...64),
            maxStreams: try environment.int("APNS_MAX_STREAMS", default: 1000, in: 1...10_000),
            requestTimeout: try environment.milliseconds("APNS_REQUEST_TIMEOUT_MS", default: .seconds(10), in: 100...300_000),
            maxInFlightJobs: try environment.int("APNS_SENDER_MAX_JOBS", default: 4, in: 1...1024),
            retry: APNsRetryPolicy(
                maxAttempts: try environment.int("APNS_RETRY_MAX_ATTEMPTS", default: 15, in: 1...50),
                baseDelay: baseDelay, maxDelay: maxDelay),
            groupID: environment.string("APNS_SENDER_GROUP", default: "apns-sender"),
            jobsTopic: try topic("APNS_SENDER_JOBS_TOPIC", .pushJobs),
            tokenInvalidTopic: try topic("APNS_SENDER_TOKEN_INVALID_TOPIC", .tokenInvalid),
            deadTopic: try topic("APNS_SENDER_DEAD_TOPIC", .dead),
            shutdownGrace: shutdownGrace,
            infrastructure: infrastructure)
        deadLetterTopic = try topic("APNS_SENDER_DEAD_LETTER_TOPIC", .deadLetter)
        outcomesTopic = try topic("APNS_SENDER_OUTCOMES_TOPIC", .pushOutcomes)
        progressTopic = environment.raw("APNS_SENDER_PROGRESS_TOPIC") == "off" ? "" : try topic("APNS_SENDER_PROGRESS_TOPIC", .pushProgress)
        progressChunk = try environment.int("APNS_SENDER_PROGRESS_CHUNK", default: progressChunk, in: 1...PushJob.maximumTargets)
        progressLookback = .seconds(try environment.int("APNS_SENDER_PROGRESS_LOOKBACK_S", default: 120, in: 10...86_400))
        endedMemory = .seconds(try environment.int("APNS_SENDER_ENDED_MEMORY_S", default: 900, in: 1...86_400))
        progressReadTimeout = try environment.milliseconds("APNS_SENDER_PROGRESS_READ_MS", default: .seconds(5), in: 100...120_000)
        progressReadMaxBytes = try environment.int("APNS_SENDER_PROGRESS_READ_MAX_MB", default: 64, in: 1...4096) << 20
        maxWaitingJobs = try environment.int("APNS_SENDER_MAX_WAITING_JOBS", default: 32, in: 0...4096)
        lookaheadJobs = try environment.int("APNS_SENDER_LOOKAHEAD_JOBS", default: lookaheadJobs, in: 1...4096)
        prefetchKilobytes = try environment.int("APNS_SENDER_PREFETCH_KB", default: prefetchKilobytes, in: 1024...1_048_576)
    }

    /// The team, key and app as `APNsCredentials`.
    public var credentials: APNsCredentials {
        APNsCredentials(teamID: teamID, keyID: keyID, keyPath: keyPath, bundleID: bundleID, caFile: caFile)
    }

    /// Loads the .p8 key; a failure names `APNS_KEY_PATH` and the path, never the file's contents.
    public func loadKey() throws(ConfigurationError) -> APNsSigningKey { try credentials.loadKey() }

    /// The APNs client: a single attempt per push (plus one JWT regeneration on
    /// ExpiredProviderToken); retries are the sender's (`RetryScheduler`), so they never double.
    public func makeClient(key: APNsSigningKey, logger: Logger, metrics: MetricsRegistry, clock: any WallClock) throws -> APNsClient {
        try APNsClient(
            configuration: APNsClientConfiguration(
                teamID: teamID, keyID: keyID, signingKey: key, bundleID: bundleID, production: production, sandbox: sandbox,
                caFile: caFile, connectionsPerHost: connections, maxStreamsPerConnection: maxStreams,
                requestTimeout: requestTimeout,
                clock: clock),
            logger: logger.child("apns"), metrics: metrics)
    }
}
