@testable import APNsSender
import APNs
import Contracts
import Foundation
import Kafka
import Runtime
import SharedTestSupport
import Synchronization
import Testing

/// An in-process APNs: answers each push by its token's script, one answer per attempt, and records
/// what it was sent. No socket, no TLS: the sender's logic alone (the real mock-apns tests stay the proof).
final class ScriptedTransport: APNsTransport {
    /// What the n-th attempt for a token gets (the last answer repeats).
    private let scripts: [String: [(status: Int, reason: APNsReason?)]]
    private let sent = LockedValue<[String: Int]>([:])
    private let broadcasts = LockedValue<[APNsBroadcast]>([])
    /// Runs before each answer (a test moves its clock here: APNs answers later than the push was made).
    private let beforeAnswer: @Sendable () -> Void

    init(_ scripts: [String: [(status: Int, reason: APNsReason?)]], beforeAnswer: @escaping @Sendable () -> Void = {}) {
        self.scripts = scripts
        self.beforeAnswer = beforeAnswer
    }

    func send(_ push: APNsPush) async -> APNsOutcome {
        beforeAnswer()
        let attempt = sent.withLock { counts -> Int in
            counts[push.device.token, default: 0] += 1
            return counts[push.device.token]!
        }
        let script = scripts[push.device.token] ?? [(200, nil)]
        let answer = script[min(attempt, script.count) - 1]
        let action: APNsAction = switch answer.status {
        case 200: .delivered
        case 410: .tokenInvalid
        case 429, 500, 503: .retry
        default: .permanentFailure
        }
        return APNsOutcome(device: push.device, action: action, status: answer.status, reason: answer.reason, apnsID: push.apnsID,
                           apnsTimestamp: answer.status == 410 ? 1_800_000_000_000 : nil, attempts: 1)
    }

    /// Broadcasts are scripted by channel id like pushes by token.
    func sendBroadcast(_ broadcast: APNsBroadcast) async -> APNsBroadcastOutcome {
        beforeAnswer()
        let attempt = sent.withLock { counts -> Int in
            counts[broadcast.channel.rawValue, default: 0] += 1
            return counts[broadcast.channel.rawValue]!
        }
        broadcasts.withLock { $0.append(broadcast) }
        let script = scripts[broadcast.channel.rawValue] ?? [(200, nil)]
        let answer = script[min(attempt, script.count) - 1]
        return APNsBroadcastOutcome(action: APNsAction.classify(status: answer.status, reason: answer.reason), status: answer.status,
                                    reason: answer.reason, requestID: broadcast.requestID, attempts: 1)
    }

    func shutdown() {}

    func attempts(_ token: String) -> Int { sent.withLock { $0[token] ?? 0 } }

    /// Every broadcast sent, in order.
    var sentBroadcasts: [APNsBroadcast] { broadcasts.withLock { $0 } }
}

@Suite struct ScriptedTransportTests {
    /// A job processor over `transport`, its results produced to fresh topics (the producer is returned to shut down).
    static func processor(_ transport: ScriptedTransport, clock: ManualWallClock, retry: APNsRetryPolicy,
                          registry: MetricsRegistry = MetricsRegistry(), outcomesTopic: String? = nil) async throws -> (JobProcessor, KafkaProducer)
    {
        let admin = try await SenderFixtures.requireBroker()
        let (invalidTopic, deadTopic) = (SenderFixtures.unique("scripted-invalid"), SenderFixtures.unique("scripted-dead"))
        let outcomes = outcomesTopic ?? SenderFixtures.unique("scripted-outcomes")
        try await admin.createTopics([KafkaTopicSpec(name: invalidTopic, partitions: 1), KafkaTopicSpec(name: deadTopic, partitions: 1),
                                      KafkaTopicSpec(name: outcomes, partitions: 1)],
                                     timeout: .seconds(10))
        let producer = try SenderFixtures.producer()
        let processor = JobProcessor(
            client: transport,
            publisher: ResultPublisher(producer: producer, tokenInvalidTopic: invalidTopic, deadTopic: deadTopic, outcomesTopic: outcomes,
                                       logger: SenderFixtures.quietLogger),
            scheduler: RetryScheduler(policy: retry, clock: clock),
            metrics: SenderMetrics(registry: registry), logger: SenderFixtures.quietLogger)
        return (processor, producer)
    }

    @Test("freshness: content polled at t and accepted by APNs at t + 2.5 s is observed as 2.5 s, per target and per broadcast")
    func freshnessIsAcceptanceMinusThePoll() async throws {
        let polled = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = ManualWallClock(polled)
        let transport = ScriptedTransport([:], beforeAnswer: { clock.set(polled.addingTimeInterval(2.5)) })
        let registry = MetricsRegistry()
        let (processor, producer) = try await Self.processor(transport, clock: clock, retry: APNsRetryPolicy(), registry: registry)
        var job = SenderFixtures.job(targets: [SenderFixtures.target(SenderFixtures.token()), SenderFixtures.target(SenderFixtures.token())],
                                     now: polled)
        job.knownAt = Int64(polled.timeIntervalSince1970 * 1000)
        job.ballAt = job.knownAt! - 4_000
        #expect(await processor.process(job) == .finished(delivered: 2, tokenInvalid: 0, dead: 0))
        var broadcast = Self.broadcastJob(channel: "Q0hBTg==", seq: 1, priority: 10, now: polled)
        broadcast.knownAt = job.knownAt
        clock.set(polled)
        #expect(await processor.process(broadcast) == .finished(delivered: 1, tokenInvalid: 0, dead: 0))
        let text = registry.render()
        let token = ["kind": "liveactivity-update", "mode": "token", "priority": "5"]
        #expect(PrometheusText.sum(text, metric: "push_freshness_seconds_sum", matching: token) == 5.0, "2 pushes × 2.5 s\n\(text)")
        #expect(PrometheusText.sum(text, metric: "push_freshness_seconds_count", matching: token) == 2)
        #expect(PrometheusText.sum(text, metric: "push_freshness_seconds_bucket", matching: token.merging(["le": "2"]) { a, _ in a }) == 0)
        #expect(PrometheusText.sum(text, metric: "push_freshness_seconds_bucket", matching: token.merging(["le": "2.5"]) { a, _ in a }) == 2)
        #expect(PrometheusText.sum(text, metric: "push_feed_age_seconds_sum", matching: token) == 13.0, "the ball was 4 s older: 2 × 6.5 s")
        let channel = ["kind": "liveactivity-update", "mode": "broadcast", "priority": "10"]
        #expect(PrometheusText.sum(text, metric: "push_freshness_seconds_sum", matching: channel) == 2.5, "one broadcast, 2.5 s")
        #expect(PrometheusText.sum(text, metric: "push_freshness_seconds_count", matching: channel) == 1)
        try await producer.shutdown()
    }

    @Test("one job to four devices: delivered, unregistered, throttled then delivered, refused — each its own final answer")
    func everyTargetGetsItsFinalAnswer() async throws {
        let (ok, gone, busy, refused) = (SenderFixtures.token(), SenderFixtures.token(), SenderFixtures.token(), SenderFixtures.token())
        let transport = ScriptedTransport([
            gone: [(410, .unregistered)],
            busy: [(429, .tooManyRequests), (503, .serviceUnavailable), (200, nil)],
            refused: [(400, .badTopic)],
        ])
        let clock = ManualWallClock(Date())
        let (processor, producer) = try await Self.processor(
            transport, clock: clock, retry: APNsRetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5)))
        let job = SenderFixtures.job(targets: [ok, gone, busy, refused].map { SenderFixtures.target($0) }, now: clock.now())
        let result = await processor.process(job)
        #expect(result == .finished(delivered: 2, tokenInvalid: 1, dead: 1))
        #expect(transport.attempts(ok) == 1 && transport.attempts(gone) == 1 && transport.attempts(refused) == 1)
        #expect(transport.attempts(busy) == 3, "retried after 429 and 503, delivered on the third attempt")
        try await producer.shutdown()
    }

    @Test("a job already past its expiration is not sent at all")
    func expiredJobSendsNothing() async throws {
        let transport = ScriptedTransport([:])
        let clock = ManualWallClock(Date())
        let (processor, producer) = try await Self.processor(transport, clock: clock, retry: APNsRetryPolicy())
        let token = SenderFixtures.token()
        let job = SenderFixtures.job(targets: [SenderFixtures.target(token)], now: clock.now().addingTimeInterval(-7200), expiresIn: 60)
        #expect(await processor.process(job) == .finished(delivered: 0, tokenInvalid: 0, dead: 1))
        #expect(transport.attempts(token) == 0)
        try await producer.shutdown()
    }

    static func broadcastJob(channel: String, seq: Int64, kind: PushKind = .liveActivityUpdate, priority: Int = 5, policy: Int = 0,
                             now: Date) -> PushJob {
        let seconds = Int64(now.timeIntervalSince1970)
        return PushJob(
            jobId: "m1:\(seq):bc:sandbox:1", kind: kind, matchId: "m1", stateSeq: seq, priority: priority, expiration: seconds + 900,
            relevanceScore: nil, payload: SenderFixtures.payload(kind, now: seconds), targets: [], createdAt: seconds * 1000,
            channel: PushChannel(channelId: channel, env: .sandbox, storagePolicy: policy))
    }

    @Test("a broadcast job: one request per attempt, expiration 0 on No Message Stored, retried on 429 until accepted")
    func broadcastIsRetriedUntilAccepted() async throws {
        let transport = ScriptedTransport(["Q0hBTg==": [(429, .tooManyRequests), (503, .serviceUnavailable), (200, nil)], "U1RPUg==": [(200, nil)]])
        let clock = ManualWallClock(Date())
        let (processor, producer) = try await Self.processor(
            transport, clock: clock, retry: APNsRetryPolicy(maxAttempts: 1, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5)))
        let job = Self.broadcastJob(channel: "Q0hBTg==", seq: 1, now: clock.now())
        #expect(JobIntake.problem(in: job) == nil)
        #expect(await processor.process(job) == .finished(delivered: 1, tokenInvalid: 0, dead: 0),
                "a priority-5 broadcast is retried past the attempt limit: it is every subscriber's update")
        #expect(transport.attempts("Q0hBTg==") == 3)
        let sent = transport.sentBroadcasts
        #expect(sent.allSatisfy { $0.expiration == 0 && $0.environment == .sandbox && $0.priority == 5 })
        #expect(Set(sent.map(\.requestID)) == [APNsID.derive(jobID: job.jobId, token: "Q0hBTg==")], "one request id, reused on retries")
        #expect(sent[0].payload == Array(job.payload.utf8))
        // A Most Recent Message Stored channel carries the job's expiration.
        _ = await processor.process(Self.broadcastJob(channel: "U1RPUg==", seq: 1, policy: 1, now: clock.now()))
        #expect(transport.sentBroadcasts.last?.expiration == Int64(clock.now().timeIntervalSince1970) + 900)
        try await producer.shutdown()
    }

    @Test("a lost channel becomes one TokenInvalid of kind channel; a refused broadcast is dead-lettered without targets")
    func lostChannelAndRefusedBroadcast() async throws {
        let transport = ScriptedTransport(["TE9TVA==": [(400, .channelNotRegistered)], "QkFE": [(400, .badPriority)]])
        let clock = ManualWallClock(Date())
        let (processor, producer) = try await Self.processor(transport, clock: clock, retry: APNsRetryPolicy())
        #expect(await processor.process(Self.broadcastJob(channel: "TE9TVA==", seq: 1, now: clock.now()))
                == .finished(delivered: 0, tokenInvalid: 1, dead: 0))
        #expect(await processor.process(Self.broadcastJob(channel: "QkFE", seq: 1, now: clock.now())) == .finished(delivered: 0, tokenInvalid: 0, dead: 1))
        #expect(transport.attempts("TE9TVA==") == 1 && transport.attempts("QkFE") == 1)
        try await producer.shutdown()
    }

    @Test("latest wins per channel: a plain update waiting out a back-off is dropped once a newer job came; an end never is")
    func newerBroadcastSupersedesAWaitingUpdate() async throws {
        let transport = ScriptedTransport(["TEFURVNU": [(429, .tooManyRequests), (200, nil)], "RU5E": [(429, .tooManyRequests), (200, nil)]])
        let clock = ManualWallClock(Date())
        let (processor, producer) = try await Self.processor(
            transport, clock: clock, retry: APNsRetryPolicy(maxAttempts: 5, baseDelay: .seconds(2), maxDelay: .seconds(2)))
        let older = Task { await processor.process(Self.broadcastJob(channel: "TEFURVNU", seq: 1, now: clock.now())) }
        try await eventually("the first attempt", within: .seconds(20), every: .milliseconds(50)) { transport.attempts("TEFURVNU") == 1 }
        #expect(await processor.process(Self.broadcastJob(channel: "TEFURVNU", seq: 2, now: clock.now())) == .finished(delivered: 1, tokenInvalid: 0, dead: 0))
        #expect(await older.value == .finished(delivered: 0, tokenInvalid: 0, dead: 0), "superseded, not sent again")
        #expect(transport.attempts("TEFURVNU") == 2)
        #expect(transport.sentBroadcasts.filter { $0.channel.rawValue == "TEFURVNU" }.map(\.requestID).count == 2)
        let end = Task { await processor.process(Self.broadcastJob(channel: "RU5E", seq: 3, kind: .liveActivityEnd, priority: 10, now: clock.now())) }
        try await eventually("the end's first attempt", within: .seconds(20), every: .milliseconds(50)) { transport.attempts("RU5E") == 1 }
        _ = await processor.process(Self.broadcastJob(channel: "RU5E", seq: 4, now: clock.now()))
        #expect(await end.value == .finished(delivered: 1, tokenInvalid: 0, dead: 0), "the end is sent although a newer job came")
        // A fan-out retried after a failure produces the same broadcast again: not sent twice to the audience.
        let sent = transport.attempts("RU5E")
        #expect(await processor.process(Self.broadcastJob(channel: "RU5E", seq: 4, now: clock.now())) == .finished(delivered: 0, tokenInvalid: 0, dead: 0))
        #expect(transport.attempts("RU5E") == sent)
        try await producer.shutdown()
    }

    @Test("a broadcast job with targets, of another kind, or with a bad channel id is refused at intake")
    func malformedBroadcastJobsAreRefused() {
        let now = Date()
        var withTargets = Self.broadcastJob(channel: "QUJD", seq: 1, now: now)
        withTargets.targets = [SenderFixtures.target()]
        #expect(JobIntake.problem(in: withTargets)?.contains("no targets") == true)
        #expect(JobIntake.problem(in: Self.broadcastJob(channel: "QUJD", seq: 1, kind: .liveActivityStart, now: now))?.contains("not liveactivity-start") == true)
        #expect(JobIntake.problem(in: Self.broadcastJob(channel: "not base64!", seq: 1, now: now)) == "channel id is not base64")
        #expect(JobIntake.problem(in: Self.broadcastJob(channel: "QUJD", seq: 1, policy: 2, now: now))?.contains("storage policy") == true)
    }
}
