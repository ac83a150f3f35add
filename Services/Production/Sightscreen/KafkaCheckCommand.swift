import CommandLineSupport
import Contracts
import Foundation
import Kafka
import Runtime

/// `sightscreen kafka-check [--scratch-topic T] [--config FILE]`: checks a cluster the way the services will use it,
/// with the same settings (KAFKA_BROKERS and the security variables), and says in plain words what is wrong:
/// connection and credentials, brokers, the topics against deploy/topics.conf (missing, unreplicated, drift), an
/// idempotent produce, a consume and a commit on a scratch topic, and the services' group coordinators.
/// Exit status 1 when anything is wrong (warnings alone do not fail it).
struct KafkaCheckCommand {
    let console: Console
    let cluster: KafkaCluster
    let environment: EnvironmentReader

    private final class Report: Sendable {
        let problems = LockedValue<[String]>([])
        let console: Console
        init(console: Console) { self.console = console }
        func ok(_ text: String) { console.line("ok      \(text)") }
        func warn(_ text: String) { console.line("warning \(text)") }
        func fail(_ text: String) {
            console.line("FAIL    \(text)")
            problems.withLock { $0.append(text) }
        }
    }

    func run(_ options: ArraySlice<String>) async throws {
        var scratch = "sightscreen.kafka-check"
        var configPath = TopicsCommand.configPath(environment)
        var rest = options[...]
        while let option = rest.popFirst() {
            switch option {
            case "--scratch-topic":
                guard let value = rest.popFirst() else { throw UsageError(message: "--scratch-topic needs a name") }
                scratch = value
            case "--config":
                guard let value = rest.popFirst() else { throw UsageError(message: "--config needs a file") }
                configPath = value
            default: throw UsageError(message: "kafka-check: unknown option \(option)")
            }
        }
        try KafkaLibrary.requireMinimumVersion()
        let report = Report(console: console)
        // The check reports every failure itself; librdkafka's own lines (retried logins, handshakes) would bury it.
        let logger = Logger(label: "kafka-check", minimumLevel: .error, sink: LogSink { _ in })
        console.line("kafka-check: \(cluster.summary), librdkafka \(KafkaLibrary.version)")
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(cluster: cluster, clientId: "sightscreen-kafka-check"), logger: logger)
        do {
            try await admin.verifyConnection()
            report.ok("connected (security \(cluster.security.transport.rawValue))")
        } catch {
            report.fail(error.description)
            console.error("kafka-check: cannot go on without a connection")
            throw ExitCode(status: 1)
        }
        let metadata = try await admin.clusterMetadata()
        report.ok("\(metadata.brokers.count) broker(s): " + metadata.brokers.map { "\($0.id)@\($0.host):\($0.port)" }.joined(separator: ", "))
        if metadata.brokers.count < 3 { report.warn("fewer than 3 brokers: no replication is possible (fine for development only)") }
        await checkTopics(admin: admin, metadata: metadata, configPath: configPath, report: report)
        await roundTrip(admin: admin, scratch: scratch, brokers: metadata.brokers.count, logger: logger, report: report)
        for (group, _) in ServiceConsumerGroups.all {
            do {
                let description = try await admin.describeGroup(group)
                report.ok("group \(group): coordinator answers; \(description.state), \(description.members) member(s)")
            } catch {
                report.fail("group \(group): its coordinator did not answer (\(error)): consumers cannot join or commit")
            }
        }
        let problems = report.problems.withLock { $0 }
        if problems.isEmpty {
            console.line("kafka-check: everything the services need works")
        } else {
            // A failed check, not a misused command: status 1 and no usage text (the FAIL lines say what is wrong).
            console.error("kafka-check: \(problems.count) problem(s); see FAIL lines above")
            throw ExitCode(status: 1)
        }
    }

    private func checkTopics(admin: KafkaAdmin, metadata: KafkaClusterMetadata, configPath: String, report: Report) async {
        guard let text = try? String(contentsOfFile: configPath, encoding: .utf8), let plan = try? TopicPlan.parse(text) else {
            report.warn("topics not checked: cannot read the topic config \(configPath) (--config or TOPICS_CONFIG)")
            return
        }
        let wanted = plan.map(\.spec)
        let existing = wanted.map(\.name).filter { metadata.topic($0) != nil }
        let overrides = try? await admin.topicOverrides(existing)
        let reconciliation = KafkaTopicReconciliation(wanted: wanted, cluster: metadata, overrides: overrides, allowUnreplicated: false)
        // A new cluster has none of the topics yet: the README checks it before `topics apply`, so that is the next
        // step, not a failure. Some present and others missing is a broken deployment.
        let freshCluster = existing.isEmpty && !wanted.isEmpty
        if freshCluster {
            report.warn("none of the \(wanted.count) topics of \(configPath) exist yet (a new cluster): run `sightscreen topics apply`, then this check again")
        }
        for change in reconciliation.changes {
            if case .create(let spec) = change {
                if !freshCluster { report.fail("topic \(spec.name) is missing: run `sightscreen topics apply`") }
            } else {
                report.warn("topic drift: `sightscreen topics apply` would \(change)")
            }
        }
        for finding in reconciliation.findings {
            if finding.isError { report.fail(finding.text) } else { report.warn(finding.text) }
        }
        if reconciliation.changes.isEmpty && reconciliation.errors.isEmpty { report.ok("topics match \(configPath)") }
    }

    /// Idempotent produce, consume in a group, commit, read the commit back; the scratch topic is deleted after.
    private func roundTrip(admin: KafkaAdmin, scratch: String, brokers: Int, logger: Logger, report: Report) async {
        let group = "sightscreen-kafka-check-\(getpid())"
        do {
            try await admin.createTopics([KafkaTopicSpec(name: scratch, partitions: 1, replicationFactor: Int32(min(3, max(1, brokers))))],
                                         timeout: .seconds(20))
            let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(cluster: cluster, clientId: "sightscreen-kafka-check"),
                                             logger: logger)
            let marker = "kafka-check \(UUID().uuidString)"
            let delivery = try await producer.send(topic: scratch, key: "check", value: Array(marker.utf8))
            try? await producer.shutdown(timeout: .seconds(5))
            report.ok("idempotent produce (acks=all) to \(scratch): offset \(delivery.offset)")
            var configuration = KafkaConsumerConfiguration(cluster: cluster, clientId: "sightscreen-kafka-check", groupId: group, topics: [scratch])
            configuration.autoOffsetReset = .earliest
            let consumer = try KafkaConsumer(configuration: configuration, logger: logger)
            let deadline = ContinuousClock.now + .seconds(60)
            var found: KafkaMessage?
            while found == nil, ContinuousClock.now < deadline {
                if let message = try await consumer.poll(timeout: .milliseconds(500)), String(decoding: message.value, as: UTF8.self) == marker {
                    found = message
                }
            }
            guard let found else {
                report.fail("consume: the group \(group) got nothing from \(scratch) in 60 s (the group coordinator or fetches do not work)")
                try? await consumer.close()
                try? await admin.deleteTopics([scratch])
                return
            }
            report.ok("consume in a group: joined and read offset \(found.offset)")
            try await consumer.commit(found)
            let committed = try await admin.committedOffsets(group: group, topics: [scratch])
            if committed[found.topicPartition] == found.offset + 1 {
                report.ok("commit: the coordinator stored offset \(found.offset + 1)")
            } else {
                report.fail("commit: the coordinator returned \(committed) after committing \(found.offset + 1)")
            }
            try? await consumer.close()
            try await admin.deleteTopics([scratch])
        } catch {
            report.fail("round trip on \(scratch): \(error)")
            try? await admin.deleteTopics([scratch])
        }
    }
}
