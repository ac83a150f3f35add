@testable import APNsSender
import APNs
import APNsMock
import Contracts
import Foundation
import Kafka
import Runtime
import ServiceKit
import SharedTestSupport
import Testing

/// One in-process apns-sender against the real broker (fresh topics and group) and an in-process
/// mock-apns over TLS, plus a reader of the result topics.
final class SenderHarness: Sendable {
    let configuration: SenderConfiguration
    let mock: MockAPNsServer
    let client: APNsClient
    let metrics = MetricsRegistry()
    let log = CapturedLog()
    let readiness = Readiness()
    let producer: KafkaProducer
    let admin: KafkaAdmin
    let results: KafkaConsumer
    private let task: Task<Void, any Error>
    /// Runs the sender as production does: its clients and services in a `ServiceGroup` whose grace period is
    /// the configuration's (no hard exit: that would end the test process).
    private let group: ServiceGroup

    /// Creates the topics, starts the sender and the results reader.
    /// - Parameters:
    ///   - clock: the sender's clock (APNs tokens, expirations, retry deadlines).
    static func start(
        mock: MockAPNsServer, partitions: Int32 = 1, retry: APNsRetryPolicy = APNsRetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50)),
        maxJobs: Int = 8, maxWaitingJobs: Int = 32, clock: any WallClock = SystemWallClock(), connections: Int = 2,
        grace: Duration = .seconds(10), requestTimeout: Duration = .seconds(5), progressMarks: Bool = true
    ) async throws -> SenderHarness {
        let admin = try await SenderFixtures.requireBroker()
        let jobs = SenderFixtures.unique("sender-jobs")
        let invalid = SenderFixtures.unique("sender-invalid")
        let dead = SenderFixtures.unique("sender-dead")
        let deadLetter = SenderFixtures.unique("sender-dead-letter")
        let outcomes = SenderFixtures.unique("sender-outcomes")
        let progress = SenderFixtures.unique("sender-progress")
        try await admin.createTopics(
            [KafkaTopicSpec(name: jobs, partitions: partitions), KafkaTopicSpec(name: invalid, partitions: 1), KafkaTopicSpec(name: dead, partitions: 1),
             KafkaTopicSpec(name: deadLetter, partitions: 1), KafkaTopicSpec(name: outcomes, partitions: 1),
             KafkaTopicSpec(name: progress, partitions: partitions)],
            timeout: .seconds(10))
        var configuration = SenderConfiguration(
            teamID: SenderFixtures.teamID, keyID: SenderFixtures.keyID, keyPath: SenderFixtures.keyFile, bundleID: SenderFixtures.bundleID,
            production: .local(port: mock.port), sandbox: .local(port: mock.port), caFile: SenderFixtures.certificate.certificateFile,
            connections: connections, maxStreams: 1000, requestTimeout: requestTimeout, maxInFlightJobs: maxJobs, retry: retry,
            groupID: SenderFixtures.unique("sender-group"), jobsTopic: jobs, tokenInvalidTopic: invalid, deadTopic: dead,
            shutdownGrace: grace, infrastructure: InfrastructureOptions(kafkaBrokers: SenderFixtures.brokers))
        configuration.infrastructure.kafkaStatisticsInterval = .seconds(1)
        configuration.deadLetterTopic = deadLetter
        configuration.outcomesTopic = outcomes
        configuration.progressTopic = progressMarks ? progress : ""
        configuration.maxWaitingJobs = maxWaitingJobs
        return try SenderHarness(configuration: configuration, mock: mock, admin: admin, clock: clock)
    }

    private init(configuration: SenderConfiguration, mock: MockAPNsServer, admin: KafkaAdmin, clock: any WallClock) throws {
        self.configuration = configuration
        self.mock = mock
        self.admin = admin
        let logger = log.logger()
        client = try configuration.makeClient(key: try configuration.loadKey(), logger: logger, metrics: metrics, clock: clock)
        readiness.set("apns_key", true)
        producer = try SenderFixtures.producer()
        var reader = KafkaConsumerConfiguration(
            bootstrapServers: SenderFixtures.brokers, clientId: SenderFixtures.unique("results"), groupId: SenderFixtures.unique("results"),
            topics: [configuration.tokenInvalidTopic, configuration.deadTopic])
        reader.sessionTimeout = .seconds(6)
        reader.heartbeatInterval = .milliseconds(500)
        results = try KafkaConsumer(configuration: reader, logger: SenderFixtures.quietLogger)
        let sender = try SenderService(
            configuration: configuration, client: client, logger: logger, metrics: metrics, readiness: readiness, clock: clock)
        // As main lists them.
        let services: [any Service] = [
            ResourceService("apns-client") { [client] in client.shutdown() },
            ResourceService("kafka-producer") { await sender.shutdownProducer() },
            ResourceService("kafka-consumer") { await sender.closeConsumer() },
            DependencyProbe("kafka_broker", readiness: readiness, metrics: metrics, logger: logger) { try await sender.consumer.checkBroker() },
            sender.intake,
            sender.dispatcher,
        ]
        let group = ServiceGroup(
            services: services, signal: ShutdownSignal(signals: []),
            readiness: readiness, logger: logger, grace: configuration.shutdownGrace, hardStop: nil)
        self.group = group
        task = Task {
            let code = await group.run()
            if code != 0 { throw SenderHarnessError.exitCode(code) }
        }
    }

    /// Makes the sender's group rebalance, as another replica joining does: a member joins it for another topic, so the
    /// eager assignor takes the sender's partitions and gives them straight back. Returns once the sender has them again;
    /// `leave` the returned member at the end.
    func rebalanceBack() async throws -> GroupJoiner {
        let assignments = { self.log.all.filter { $0.contains("partitions assigned") }.count }
        let before = assignments()
        let other = SenderFixtures.unique("sender-other")
        try await admin.createTopics([KafkaTopicSpec(name: other, partitions: 1)], timeout: .seconds(10))
        var joining = KafkaConsumerConfiguration(
            bootstrapServers: SenderFixtures.brokers, clientId: SenderFixtures.unique("joiner"), groupId: configuration.groupID, topics: [other])
        joining.sessionTimeout = .seconds(6)
        joining.heartbeatInterval = .milliseconds(500)
        let joiner = GroupJoiner(consumer: try KafkaConsumer(configuration: joining, logger: SenderFixtures.quietLogger))
        try await eventually("the sender's partitions taken and given back", within: .seconds(60), every: .milliseconds(50)) { assignments() > before }
        return joiner
    }

    /// Produces jobs (one per call to keep partition order simple), keyed "matchId:seq".
    func produce(_ jobs: [PushJob], key: String? = nil) async throws {
        for job in jobs {
            _ = try await producer.send(topic: configuration.jobsTopic, key: key ?? "\(job.matchId):\(job.jobId)", value: try MessageCodec.encode(job))
        }
    }

    func produceRaw(_ bytes: [UInt8], key: String = "raw") async throws {
        _ = try await producer.send(topic: configuration.jobsTopic, key: Array(key.utf8), value: bytes)
    }

    /// Waits until the consumer joined the group (readiness "kafka").
    func waitUntilReady(timeout: Duration = .seconds(60)) async throws {
        try await eventually("the sender joined its group", within: timeout, every: .milliseconds(50)) { readiness.isReady }
    }

    /// Committed next-offsets of the sender's group on the jobs topic.
    func committed() async throws -> [KafkaTopicPartition: Int64] {
        try await admin.committedOffsets(group: configuration.groupID, topics: [configuration.jobsTopic], timeout: .seconds(15))
    }

    /// Waits until the group's committed offsets sum to `messages` (every message committed).
    func waitForCommitted(_ messages: Int64, timeout: Duration = .seconds(30)) async throws {
        // A read that times out (a busy machine, the broker slow to answer OffsetFetch) is "not yet": asked again.
        try await eventually("\(messages) committed messages", within: timeout, every: .milliseconds(50)) {
            (try? await committed())?.values.reduce(0, +) == messages
        }
    }

    /// Reads `count` records off the result topics (token-invalid and dead), failing after `timeout`.
    func readResults(_ count: Int, timeout: Duration = .seconds(30)) async throws -> [KafkaMessage] {
        var messages: [KafkaMessage] = []
        let deadline = ContinuousClock.now + timeout
        while messages.count < count {
            guard ContinuousClock.now < deadline else {
                throw SenderTestFailure(description: "read \(messages.count) of \(count) result records within \(timeout)")
            }
            if let message = try await results.poll(timeout: .milliseconds(200)) { messages.append(message) }
        }
        return messages
    }

    /// Polls the result topics for `duration` (to prove nothing more arrives).
    func drainResults(for duration: Duration) async throws -> [KafkaMessage] {
        var messages: [KafkaMessage] = []
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            if let message = try await results.poll(timeout: .milliseconds(200)) { messages.append(message) }
        }
        return messages
    }

    /// Triggers shutdown, waits for the sender to drain and return (bounded), closes the rest, and
    /// checks that no log line carried the provider token or the key.
    func stop(timeout: Duration = .seconds(30)) async throws {
        group.triggerGracefulShutdown()
        // Not a task group racing `task.value` against a sleep: a group waits for every child, and `task.value`
        // ignores cancellation, so a sender that never returned kept the test (and the whole phase) waiting.
        let returned = AsyncCondition(false)
        Task { [task] in
            _ = try? await task.value
            returned.update { $0 = true }
        }
        let finished = await returned.wait(until: { $0 }, timeout: timeout)
        if !finished { task.cancel() }
        #expect(finished, "the sender did not stop within \(timeout)")
        try? await results.close()
        try? await producer.shutdown(timeout: .seconds(5))
        mock.stop()
        assertNoSecretsLogged()
    }

    /// No log line contains the JWT, `bearer`, or any line of the key's PEM body.
    func assertNoSecretsLogged() {
        let lines = log.all
        let token = (try? client.tokens.token()) ?? "unavailable"
        let keyLines = SenderFixtures.privateKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        for line in lines {
            #expect(!line.contains(token), "log line carries the provider token")
            #expect(!line.lowercased().contains("bearer"), "log line carries an authorization header: \(line)")
            for keyLine in keyLines { #expect(!line.contains(keyLine), "log line carries key material") }
            #expect(!line.contains(String(token.prefix(40))))
        }
    }

    /// Decodes the result records into token-invalid records, dead pushes, and rejected messages (dead pushes
    /// with cause `rejected`, as they travel).
    static func split(_ messages: [KafkaMessage], harness: SenderHarness) throws -> (invalid: [TokenInvalid], dead: [DeadPush], rejected: [KafkaMessage]) {
        var invalid: [TokenInvalid] = []
        var dead: [DeadPush] = []
        var rejected: [KafkaMessage] = []
        for message in messages {
            if message.topic == harness.configuration.tokenInvalidTopic {
                invalid.append(try MessageCodec.decode(TokenInvalid.self, from: message.value))
            } else if try MessageCodec.decode(DeadPush.self, from: message.value).cause == .rejected {
                rejected.append(message)
            } else {
                dead.append(try MessageCodec.decode(DeadPush.self, from: message.value))
            }
        }
        return (invalid, dead, rejected)
    }
}

/// How the harness's sender group ended when it did not end cleanly.
enum SenderHarnessError: Error {
    case exitCode(Int32)
}

/// A group member that only polls (it joins the group by polling), until `leave`.
final class GroupJoiner: Sendable {
    private let consumer: KafkaConsumer
    private let polling: Task<Void, Never>

    init(consumer: KafkaConsumer) {
        self.consumer = consumer
        polling = Task { while !Task.isCancelled { _ = try? await consumer.poll(timeout: .milliseconds(100)) } }
    }

    /// Stops polling and leaves the group.
    func leave() async throws {
        polling.cancel()
        _ = await polling.value
        try await consumer.close()
    }
}
