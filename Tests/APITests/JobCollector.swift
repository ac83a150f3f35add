import Contracts
import Foundation
import Kafka
import Runtime

/// Reads this process's push-jobs topic (`APITestHarness.jobsTopic`) with a fresh consumer group
/// (from the earliest offset) for the whole test process and keeps the jobs by matchId, so tests can wait for theirs.
actor JobCollector {
    static let shared = JobCollector()

    struct Received: Sendable {
        var key: String
        var job: PushJob
    }

    private var jobs: [String: [Received]] = [:]
    private var started = false
    private var failure: String?

    private func start() {
        guard !started else { return }
        started = true
        Task.detached { await JobCollector.shared.run() }
    }

    private func run() async {
        do {
            var configuration = KafkaConsumerConfiguration(
                bootstrapServers: APITestHarness.brokers, clientId: "api-tests-jobs",
                groupId: "api-tests-\(UUID().uuidString.prefix(8))", topics: [APITestHarness.jobsTopic])
            configuration.sessionTimeout = .milliseconds(6000)
            configuration.heartbeatInterval = .milliseconds(500)
            configuration.autoOffsetReset = .earliest
            let consumer = try KafkaConsumer(configuration: configuration, logger: APITestHarness.logger)
            while true {
                guard let message = try await consumer.poll(timeout: .milliseconds(200)) else { continue }
                guard let job = try? MessageCodec.decode(PushJob.self, from: message.value) else { continue }
                record(Received(key: message.keyString ?? "", job: job))
            }
        } catch {
            failure = "\(APITestHarness.jobsTopic) consumer failed: \(error) (start Kafka with scripts/stack servers)"
        }
    }

    private func record(_ received: Received) {
        jobs[received.job.matchId, default: []].append(received)
    }

    /// Waits until at least `count` jobs of `matchId` (and `kind`) arrived; fails after `timeout`.
    func wait(matchId: String, kind: PushKind? = nil, count: Int, timeout: Duration = .seconds(60)) async throws -> [Received] {
        start()
        let deadline = ContinuousClock.now + timeout
        while true {
            if let failure { throw APITestFailure(description: failure) }
            let found = (jobs[matchId] ?? []).filter { kind == nil || $0.job.kind == kind }
            if found.count >= count { return found }
            guard ContinuousClock.now < deadline else {
                throw APITestFailure(description: "saw \(found.count) of \(count) \(kind?.rawValue ?? "") jobs for \(matchId) on \(APITestHarness.jobsTopic) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The jobs of `matchId` seen so far.
    func seen(matchId: String) -> [Received] { jobs[matchId] ?? [] }
}
