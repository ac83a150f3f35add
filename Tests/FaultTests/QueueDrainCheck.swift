import Contracts
import DevStack
import Foundation
import Kafka
import PipelineTestSupport
import Runtime

/// Issue 42's "nothing remains queued at the end": once the match is over, the groups on the push path of a dev run
/// (la-coordinator's events, token-invalid and record groups, apns-sender's) have read and committed everything
/// (lag 0, as the broker reports it), and the run's dead pushes are all explained (retries exhausted or expired during
/// the APNs storms), none `permanent` or `rejected` (a bug: a job APNs or the sender refused for good).
struct QueueDrainCheck {
    let options: DevStackOptions
    let logger: Logger

    struct Result: Sendable {
        /// "group topic: lag" of each push-path group still behind when the wait ended.
        var behind: [String]
        /// The run's dead pushes by cause.
        var deadByCause: [DeadPush.Cause: Int]
        /// "cause jobId: lastError" of each dead push that is not explained.
        var unexplained: [String]
        /// Records of `push.dead` read in all (every run's), and whether its partitions were assigned at all.
        var deadRead: Int
        var deadAssigned: Bool
    }

    /// Waits (bounded) for the push-path groups to reach lag 0, then reads `push.dead` for `matchId`.
    func run(matchId: String, within timeout: Duration = .seconds(120)) async throws -> Result {
        let groups = options.consumerGroups
        let pushPath = [(groups.coordinatorEvents, Topic.matchEvents.name), (groups.coordinatorTokenInvalid, Topic.tokenInvalid.name),
                        (groups.coordinatorRecord, Topic.pushOutcomes.name), (groups.sender, Topic.pushJobs.name)]
        let quiet = Logger(label: "fault-suite.drain", minimumLevel: .error)
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: options.kafkaBrokers, clientId: "fault-suite-drain"),
                                   logger: quiet)
        var behind: [String] = []
        let deadline = ContinuousClock.now + timeout
        repeat {
            behind = []
            for (group, topic) in pushPath {
                guard let partitions = try? await admin.lag(group: group, topics: [topic], timeout: .seconds(15)) else {
                    behind.append("\(group) \(topic): lag unreadable")
                    continue
                }
                let lag = partitions.reduce(Int64(0)) { $0 + $1.lag }
                if lag > 0 { behind.append("\(group) \(topic): \(lag)") }
            }
            if behind.isEmpty { break }
            try await Task.sleep(for: .seconds(1))
        } while ContinuousClock.now < deadline
        let (dead, read, wasAssigned) = try await deadPushes(matchId: matchId, quiet: quiet)
        var byCause: [DeadPush.Cause: Int] = [:]
        for push in dead { byCause[push.cause, default: 0] += 1 }
        let unexplained = dead.filter { $0.cause == .permanent || $0.cause == .rejected }
            .map { "\($0.cause.rawValue) \($0.jobId): \($0.lastError.prefix(200))" }
        return Result(behind: behind, deadByCause: byCause, unexplained: unexplained, deadRead: read, deadAssigned: wasAssigned)
    }

    /// `push.dead` from its start, with a fresh group, until it has been quiet for 3 s after the assignment (bounded):
    /// the records of `matchId` (a job's match, or a rejected message whose job id names it).
    private func deadPushes(matchId: String, quiet: Logger) async throws -> (found: [DeadPush], read: Int, assigned: Bool) {
        let assigned = AssignedFlag()
        var configuration = KafkaConsumerConfiguration(bootstrapServers: options.kafkaBrokers, clientId: "fault-suite-dead",
                                                       groupId: "fault-suite.dead.\(UUID().uuidString.prefix(8))", topics: [Topic.dead.name])
        configuration.autoOffsetReset = .earliest
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        let consumer = try KafkaConsumer(configuration: configuration, logger: quiet, onRebalance: { event in
            if case .assigned(let partitions) = event, !partitions.isEmpty { assigned.value.withLock { $0 = true } }
        })
        var found: [DeadPush] = []
        var read = 0
        var quietSince: ContinuousClock.Instant?
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let message = try await consumer.poll(timeout: .milliseconds(200)) {
                quietSince = .now
                read += 1
                if let push = try? MessageCodec.decode(DeadPush.self, from: message.value),
                   push.job?.matchId == matchId || push.jobId.contains(matchId) {
                    found.append(push)
                }
                continue
            }
            guard assigned.value.withLock({ $0 }) else { continue }
            let since = quietSince ?? .now
            quietSince = since
            if ContinuousClock.now - since >= .seconds(3) { break }
        }
        try? await consumer.close()
        return (found, read, assigned.value.withLock { $0 })
    }
}
