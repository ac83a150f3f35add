import Contracts
import FanOut
import Foundation
import Kafka
import Runtime
import Testing
import SharedTestSupport
import DeadPushRedrive

/// Re-driving `push.dead` (`sightscreen redrive-dead`): the decision alone, then against Kafka.
@Suite("re-driving dead pushes")
struct DeadPushRedriveTests {
    static let now: Int64 = 1_800_000_000

    static func target(_ index: Int) -> PushTarget {
        PushTarget(token: String(format: "%064x", index), env: .production, userId: "u\(index)", deviceId: "d\(index)")
    }

    static func dead(matchId: String = "m1", expiration: Int64 = now + 600, cause: DeadPush.Cause = .exhausted,
                     lastError: String = "retries exhausted after 15 attempts: HTTP 429 TooManyRequests",
                     targets: Int = 5, undelivered: Int = 2) -> DeadPush {
        let all = (0..<targets).map(target)
        let job = PushJob(jobId: "\(matchId):7:3:0", kind: .liveActivityUpdate, matchId: matchId, stateSeq: 7, priority: 10, expiration: expiration,
                          relevanceScore: 10, payload: #"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#, targets: all,
                          createdAt: (now - 100) * 1000)
        return DeadPush(job: job, undelivered: Array(all.prefix(undelivered)), cause: cause, lastError: lastError, diedAt: (now - 10) * 1000)
    }

    @Test("triage: exhausted and unexpired is sent again as the next attempt of the same job; expired, permanent and empty are not")
    func triage() throws {
        let record = Self.dead()
        guard case .redrive(let job) = DeadPushTriage.decide(record, nowSeconds: Self.now) else {
            Issue.record("an exhausted, unexpired push is re-driven")
            return
        }
        let original = try #require(record.job)
        #expect(job.jobId == original.jobId && record.jobId == original.jobId, "same job, so the same apns-ids")
        #expect(job.targets == record.undelivered)
        #expect(job.attempt == original.attempt + 1)
        #expect(job.payload == original.payload && job.expiration == original.expiration)
        #expect(DeadPushTriage.decide(Self.dead(expiration: Self.now), nowSeconds: Self.now) == .skip(.expired))
        #expect(DeadPushTriage.decide(Self.dead(expiration: 0), nowSeconds: Self.now) == .skip(.expired), "0 is now or never")
        #expect(DeadPushTriage.decide(Self.dead(cause: .expired), nowSeconds: Self.now) == .skip(.expired), "expired before its answer")
        let rejected = DeadPush.rejected(jobId: "m1:7:3:0", source: .init(topic: "push.jobs", partition: 1, offset: 9, kind: "invalid_field"),
                                         error: "field targets: missing", diedAt: Self.now * 1000)
        #expect(DeadPushTriage.decide(rejected, nowSeconds: Self.now, includePermanent: true) == .skip(.rejected))
        let permanent = Self.dead(cause: .permanent, lastError: "HTTP 400 PayloadTooLarge")
        #expect(DeadPushTriage.decide(permanent, nowSeconds: Self.now) == .skip(.permanent))
        if case .redrive = DeadPushTriage.decide(permanent, nowSeconds: Self.now, includePermanent: true) {} else {
            Issue.record("--include-permanent re-drives a permanent refusal")
        }
        #expect(DeadPushTriage.decide(Self.dead(undelivered: 0), nowSeconds: Self.now) == .skip(.nothingUndelivered))
    }

    @Test("against Kafka: only the exhausted, unexpired record goes back to the jobs topic, keyed by its shard; a second run finds nothing")
    func redriveOverKafka() async throws {
        let deadTopic = try await TestSupport.topic("redrive-dead", partitions: 2)
        let jobsTopic = try await TestSupport.topic("redrive-jobs", partitions: 3)
        let producer = try TestSupport.producer()
        let clock = ManualWallClock(Date(timeIntervalSince1970: TimeInterval(Self.now)))
        let matchId = TestSupport.unique("redrive")
        let records: [[UInt8]] = [
            try MessageCodec.encode(Self.dead(matchId: matchId)),
            try MessageCodec.encode(Self.dead(matchId: matchId, expiration: Self.now - 1)),
            try MessageCodec.encode(Self.dead(matchId: matchId, cause: .permanent, lastError: "HTTP 403 BadTopic")),
            Array("not a dead push".utf8),
        ]
        for (index, value) in records.enumerated() {
            _ = try await producer.send(topic: deadTopic, key: Array("job-\(index)".utf8), value: value)
        }
        func redriver(_ group: String, dryRun: Bool = false) -> DeadPushRedriver {
            var redriver = DeadPushRedriver(cluster: KafkaCluster(bootstrapServers: TestSupport.brokers), group: group, clock: clock, logger: TestSupport.quiet)
            redriver.deadTopic = deadTopic
            redriver.jobsTopic = jobsTopic
            redriver.shards = 8
            redriver.idle = .seconds(5)  // a busy machine can take seconds between the assignment and the first fetch
            redriver.timeout = .seconds(60)
            redriver.dryRun = dryRun
            return redriver
        }
        let dry = try await redriver(TestSupport.unique("redrive-dry"), dryRun: true).run()
        #expect(dry.redriven == 1 && dry.read == 4)

        let group = TestSupport.unique("redrive-group")
        let report = try await redriver(group).run()
        #expect(report.read == 4)
        #expect(report.redriven == 1 && report.redrivenTargets == 2)
        #expect(report.skipped == [.expired: 1, .permanent: 1])
        #expect(report.notDeadPush == 1)
        let jobs = try await TestSupport.readJobs(topic: jobsTopic, matchId: matchId) { $0.count >= 1 }
        #expect(jobs.count == 1, "the dry run sent nothing; the real run one job")
        let job = try #require(jobs.first)
        #expect(job.job.jobId == "\(matchId):7:3:0" && job.job.attempt == 1)
        #expect(job.job.targets == [Self.target(0), Self.target(1)])
        #expect(job.key == PushJob.key(matchId: matchId, shard: PushSharding.shard(token: Self.target(0).token, shards: 8)))

        let again = try await redriver(group).run()
        #expect(again.read == 0, "committed: a record is re-driven once per group")
        try await producer.shutdown()
    }
}
