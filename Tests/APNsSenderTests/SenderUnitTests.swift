@testable import APNsSender
import APNs
import Contracts
import Foundation
import Kafka
import Runtime
import ServiceKit
import Synchronization
import Testing
import SharedTestSupport

/// The parts that need no server: commit ordering, the retry policy, configuration, intake.
@Suite struct SenderUnitTests {
    let partition = KafkaTopicPartition(topic: "t", partition: 0)
    let other = KafkaTopicPartition(topic: "t", partition: 1)

    @Test func offsetsAreCommittedOnlyUpToTheFirstUnfinishedJob() {
        let tracker = CommitTracker()
        for offset in Int64(10)...14 { tracker.begin(partition, offset: offset) }
        tracker.begin(other, offset: 3)
        #expect(tracker.takeCommittable().isEmpty)
        tracker.finish(partition, offset: 12)
        tracker.finish(partition, offset: 13)
        #expect(tracker.takeCommittable().isEmpty, "10 and 11 still running")
        tracker.finish(partition, offset: 10)
        #expect(tracker.takeCommittable() == [partition: 11])
        tracker.finish(partition, offset: 11)
        #expect(tracker.takeCommittable() == [partition: 14])
        #expect(tracker.takeCommittable().isEmpty, "nothing moved")
        tracker.finish(partition, offset: 14)
        tracker.finish(other, offset: 3)
        #expect(tracker.takeCommittable() == [partition: 15, other: 4])
        #expect(tracker.pendingCount == 0)
    }

    @Test func revokedPartitionsAreForgotten() {
        let tracker = CommitTracker()
        tracker.begin(partition, offset: 0)
        tracker.begin(partition, offset: 1)
        tracker.finish(partition, offset: 0)
        let taken = tracker.takeCommittable()
        #expect(taken == [partition: 1])
        tracker.revoke([partition])
        tracker.finish(partition, offset: 1)
        #expect(tracker.takeCommittable().isEmpty)
    }

    @Test func retriesStopAtTheAttemptLimitAndBeforeTheExpiration() {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let scheduler = RetryScheduler(
            policy: APNsRetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(400), maxDelay: .seconds(2)), clock: clock)
        let later = Int64(1_800_000_000 + 3600)
        guard case .retry(let first) = scheduler.decide(afterAttempt: 1, expiration: later) else {
            Issue.record("expected a retry")
            return
        }
        #expect(first >= .milliseconds(200) && first <= .milliseconds(400))
        guard case .retry(let second) = scheduler.decide(afterAttempt: 2, expiration: later) else {
            Issue.record("expected a retry")
            return
        }
        #expect(second >= .milliseconds(400) && second <= .milliseconds(800))
        #expect(scheduler.decide(afterAttempt: 3, expiration: later) == .giveUp(.exhausted(attempts: 3)))
        // The back-off would reach the expiration: give up now.
        #expect(scheduler.decide(afterAttempt: 1, expiration: 1_800_000_000) == .giveUp(.expired))
        // apns-expiration 0 is "now or never": no retry.
        #expect(scheduler.decide(afterAttempt: 1, expiration: 0) == .giveUp(.expired))
        #expect(scheduler.isExpired(1_799_999_999))
        #expect(!scheduler.isExpired(0))
        #expect(!scheduler.isExpired(later))
    }

    /// A key event's alert or a match's end (priority 10) is not given up after `maxAttempts`: only
    /// its expiration (or the ceiling) stops it, so a throttle longer than the budget loses nothing.
    @Test func priorityTenPushesRetryUntilTheirExpiration() {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let scheduler = RetryScheduler(
            policy: APNsRetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(400), maxDelay: .seconds(2)), clock: clock)
        let later = Int64(1_800_000_000 + 900)
        #expect(scheduler.decide(afterAttempt: 3, expiration: later, priority: 5) == .giveUp(.exhausted(attempts: 3)))
        guard case .retry(let delay) = scheduler.decide(afterAttempt: 40, expiration: later, priority: 10) else {
            Issue.record("a priority-10 push is retried past maxAttempts")
            return
        }
        #expect(delay <= .seconds(2))
        clock.advance(by: 899)
        #expect(scheduler.decide(afterAttempt: 41, expiration: later, priority: 10) == .giveUp(.expired))
        let ceiling = RetryScheduler.keyPushAttemptCeiling
        #expect(scheduler.decide(afterAttempt: ceiling, expiration: later + 1_000_000, priority: 10)
                == .giveUp(.exhausted(attempts: ceiling)))
    }

    @Test func tokenKindFollowsTheJobKind() {
        #expect(JobProcessor.tokenKind(for: .liveActivityUpdate) == .update)
        #expect(JobProcessor.tokenKind(for: .liveActivityEnd) == .update)
        #expect(JobProcessor.tokenKind(for: .liveActivityStart) == .pushToStart)
        #expect(JobProcessor.tokenKind(for: .alert) == .device)
    }

    static let validEnvironment = [
        "APNS_TEAM_ID": "TEAM123456", "APNS_KEY_ID": "KEY1234567", "APNS_KEY_PATH": "/tmp/AuthKey.p8",
        "APNS_BUNDLE_ID": "com.sightscreen.app",
    ]

    @Test func configurationHasAppleDefaultsAndReadsEveryVariable() throws {
        let defaults = try SenderConfiguration(EnvironmentReader(Self.validEnvironment), shutdownGrace: .seconds(3))
        #expect(defaults.production == .production)
        #expect(defaults.sandbox == .sandbox)
        #expect(defaults.groupID == "apns-sender")
        #expect(defaults.jobsTopic == "push.jobs")
        #expect(defaults.tokenInvalidTopic == "push.token-invalid")
        #expect(defaults.deadTopic == "push.dead")
        #expect(defaults.caFile == nil)
        #expect(defaults.shutdownGrace == .seconds(3))
        #expect(defaults.maxWaitingJobs == 32 && defaults.prefetchKilobytes == 16_384)
        var environment = Self.validEnvironment
        environment.merge([
            "APNS_PRODUCTION_HOST": "127.0.0.1", "APNS_PRODUCTION_PORT": "2197", "APNS_SANDBOX_HOST": "127.0.0.1",
            "APNS_SANDBOX_PORT": "2198", "APNS_CONNECTIONS": "4", "APNS_MAX_STREAMS": "250", "APNS_SENDER_MAX_JOBS": "3",
            "APNS_SENDER_MAX_WAITING_JOBS": "0", "APNS_SENDER_PREFETCH_KB": "4096",
            "APNS_RETRY_MAX_ATTEMPTS": "7", "APNS_RETRY_BASE_MS": "50", "APNS_RETRY_MAX_MS": "900",
            "APNS_SENDER_JOBS_TOPIC": "j", "APNS_SENDER_GROUP": "g", "KAFKA_BROKERS": "10.0.0.1:9092",
        ]) { _, new in new }
        let custom = try SenderConfiguration(EnvironmentReader(environment), shutdownGrace: .seconds(1))
        #expect(custom.production == APNsEndpoint(host: "127.0.0.1", port: 2197))
        #expect(custom.sandbox == APNsEndpoint(host: "127.0.0.1", port: 2198))
        #expect(custom.connections == 4 && custom.maxStreams == 250 && custom.maxInFlightJobs == 3 && custom.maxWaitingJobs == 0)
        #expect(custom.prefetchKilobytes == 4096)
        #expect(custom.retry == APNsRetryPolicy(maxAttempts: 7, baseDelay: .milliseconds(50), maxDelay: .milliseconds(900)))
        #expect(custom.jobsTopic == "j" && custom.groupID == "g")
        #expect(custom.infrastructure.kafkaBrokers == "10.0.0.1:9092")
    }

    @Test(arguments: [
        ("APNS_TEAM_ID", nil), ("APNS_KEY_ID", nil), ("APNS_KEY_PATH", nil), ("APNS_BUNDLE_ID", nil),
        ("APNS_TEAM_ID", "TEAM\"}"), ("APNS_PRODUCTION_PORT", "0"), ("APNS_SANDBOX_PORT", "x"), ("APNS_CONNECTIONS", "0"),
        ("APNS_MAX_STREAMS", "-1"), ("APNS_SENDER_MAX_JOBS", "many"), ("APNS_SENDER_MAX_WAITING_JOBS", "-1"), ("APNS_SENDER_PREFETCH_KB", "10"), ("APNS_RETRY_MAX_ATTEMPTS", "0"),
        ("APNS_RETRY_MAX_MS", "1"), ("APNS_CA_FILE", "/nonexistent/ca.pem"), ("APNS_SENDER_DEAD_TOPIC", "a b"),
        ("KAFKA_BROKERS", "nohostport"),
    ] as [(String, String?)])
    func badConfigurationNamesTheVariable(variable: String, value: String?) {
        var environment = Self.validEnvironment
        environment[variable] = value
        do {
            _ = try SenderConfiguration(EnvironmentReader(environment), shutdownGrace: .seconds(1))
            Issue.record("\(variable)=\(value ?? "unset") was accepted")
        } catch {
            #expect(error.description.contains(variable))
        }
    }

    @Test func anUnusableKeyFileNamesThePathNotTheContents() throws {
        let path = NSTemporaryDirectory() + "not-a-key-\(getpid()).p8"
        try Data("-----BEGIN PRIVATE KEY-----\nSECRETSECRET\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var environment = Self.validEnvironment
        environment["APNS_KEY_PATH"] = path
        let configuration = try SenderConfiguration(EnvironmentReader(environment), shutdownGrace: .seconds(1))
        #expect(throws: ConfigurationError.self) { try configuration.loadKey() }
        do {
            _ = try configuration.loadKey()
        } catch {
            #expect(error.description.contains("APNS_KEY_PATH"))
            #expect(error.description.contains(path))
            #expect(!error.description.contains("SECRETSECRET"))
        }
    }

    static func message(_ bytes: [UInt8]) -> KafkaMessage {
        KafkaMessage(topic: "push.jobs", partition: 0, offset: 7, key: nil, value: bytes, headers: [], timestamp: nil)
    }

    @Test func intakeSortsJobsInvalidJobsAndPoison() throws {
        let good = SenderFixtures.job(targets: [SenderFixtures.target()])
        guard case .job(let decoded) = JobIntake.classify(Self.message(try MessageCodec.encode(good))) else {
            Issue.record("a valid job was not accepted")
            return
        }
        #expect(decoded == good)
        var big = good
        big.payload = String(repeating: "x", count: 5000)
        guard case .invalid(_, let reason) = JobIntake.classify(Self.message(try MessageCodec.encode(big))) else {
            Issue.record("an oversized payload was accepted")
            return
        }
        #expect(reason.contains("4096"))
        let cases: [([UInt8], String, String?)] = [
            (Array("not json".utf8), "malformed_json", nil),
            (Array(#"{"schema":99,"jobId":"j-1"}"#.utf8), "unsupported_schema", "j-1"),
            (Array(#"{"schema":2,"jobId":"j-2","kind":"liveactivity-update"}"#.utf8), "invalid_field", "j-2"),
            ([UInt8](repeating: 0x20, count: MessageCodec.maximumMessageBytes + 1), "too_large", nil),
            ([], "malformed_json", nil),
        ]
        for (bytes, kind, jobID) in cases {
            guard case .poison(let foundKind, _, let foundJobID) = JobIntake.classify(Self.message(bytes)) else {
                Issue.record("poison accepted: \(kind)")
                continue
            }
            #expect(foundKind == kind)
            #expect(foundJobID == jobID)
        }
    }

    @Test func aParkedJobFreesItsSendingSlotAndGetsItBackBeforeNewJobs() async throws {
        // The back-off ends when the test says so, not after a time a loaded machine may overrun.
        let backOffOver = Flag()
        let set = JobSet(limit: 1, waitingLimit: 1, sleep: { _ in await backOffOver.waitUntilSet() })
        let firstResumed = Flag(), releaseFirst = Flag(), releaseSecond = Flag()
        set.start { slot in
            try? await slot.wait(.milliseconds(200))
            firstResumed.set()
            await releaseFirst.waitUntilSet()
        }
        #expect(await set.wait(until: { $0.parkedCount == 1 }, timeout: .seconds(10)))
        #expect(set.hasSlot, "the parked job gave its slot up")
        set.start { _ in await releaseSecond.waitUntilSet() }
        #expect(!set.hasSlot)
        backOffOver.set()
        // A positive barrier: the first job's back-off is over and it is queued for a slot.
        #expect(await set.wait(until: { $0.returning == 1 }, timeout: .seconds(10)))
        #expect(!firstResumed.isSet, "its wait is over but the only slot is taken")
        #expect(!set.hasSlot, "the returning job claims the next slot before any new job")
        releaseSecond.set()
        #expect(await set.wait(until: { $0.returning == 0 && $0.parked == 0 && $0.sending == 1 }, timeout: .seconds(10)))
        await firstResumed.waitUntilSet()
        #expect(!set.hasSlot && set.count == 1 && set.parkedCount == 0)
        releaseFirst.set()
        #expect(await set.wait(until: { $0.count == 0 }, timeout: .seconds(10)))
        #expect(set.hasSlot)
    }

    @Test func withoutRoomToParkAJobWaitsHoldingItsSlot() async throws {
        let set = JobSet(limit: 1, waitingLimit: 0)
        let waited = Flag()
        set.start { slot in
            try? await slot.wait(.milliseconds(300))
            waited.set()
        }
        #expect(set.parkedCount == 0)
        #expect(!set.hasSlot)
        #expect(await set.wait(until: { $0.count == 0 }, timeout: .seconds(10)))
        #expect(waited.isSet)
    }

    @Test func aParkedJobCancelledDuringItsWaitLeavesNothingBehind() async throws {
        let set = JobSet(limit: 1, waitingLimit: 4)
        let cancelled = Flag()
        set.start { slot in
            do { try await slot.wait(.seconds(60)) } catch { cancelled.set() }
        }
        #expect(await set.wait(until: { $0.parkedCount == 1 }, timeout: .seconds(10)))
        set.cancelAll()
        #expect(await set.wait(until: { $0.count == 0 }, timeout: .seconds(10)))
        #expect(cancelled.isSet && set.parkedCount == 0 && set.hasSlot)
    }
}

/// A one-way flag a test sets and a job waits for.
private final class Flag: Sendable {
    private let value = LockedValue(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
    func waitUntilSet() async { while !isSet { try? await Task.sleep(for: .milliseconds(5)) } }
}
