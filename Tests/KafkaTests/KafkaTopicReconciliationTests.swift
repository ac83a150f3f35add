import Kafka
import Testing

/// Issue 30: `sightscreen topics apply` plans replicated topics, refuses unreplicated ones on real clusters, reports drift.
@Suite struct KafkaTopicReconciliationTests {
    static func cluster(brokers: Int, topics: [KafkaClusterMetadata.Topic] = []) -> KafkaClusterMetadata {
        KafkaClusterMetadata(brokers: (1...brokers).map { KafkaClusterMetadata.Broker(id: Int32($0), host: "b\($0)", port: 9092) }, topics: topics)
    }
    static func topic(_ name: String, partitions: Int, replicas: Int, inSync: Int? = nil) -> KafkaClusterMetadata.Topic {
        KafkaClusterMetadata.Topic(name: name, partitions: (0..<partitions).map {
            KafkaClusterMetadata.Partition(id: Int32($0), replicas: replicas, inSync: inSync ?? replicas)
        })
    }
    static let wanted = [KafkaTopicSpec(name: "push.jobs", partitions: 24, replicationFactor: 3,
                                        config: ["min.insync.replicas": "2", "retention.ms": "86400000"])]

    @Test func createsReplicatedTopicsOnAThreeBrokerCluster() {
        let plan = KafkaTopicReconciliation(wanted: Self.wanted, cluster: Self.cluster(brokers: 3), overrides: [:], allowUnreplicated: false)
        #expect(plan.changes == [.create(Self.wanted[0])])
        #expect(plan.findings.isEmpty)
    }

    @Test("one broker: one replica and min.insync.replicas 1, with a warning")
    func developmentClusterGetsWhatItCanHold() {
        let plan = KafkaTopicReconciliation(wanted: Self.wanted, cluster: Self.cluster(brokers: 1), overrides: [:], allowUnreplicated: false)
        #expect(plan.changes == [.create(KafkaTopicSpec(name: "push.jobs", partitions: 24, replicationFactor: 1,
                                                        config: ["min.insync.replicas": "1", "retention.ms": "86400000"]))])
        #expect(plan.errors.isEmpty)
        #expect(plan.findings.count == 1)
    }

    @Test func refusesOneReplicaOnThreeBrokersUnlessAllowed() {
        let unreplicated = [KafkaTopicSpec(name: "push.jobs", partitions: 24, replicationFactor: 1)]
        #expect(KafkaTopicReconciliation(wanted: unreplicated, cluster: Self.cluster(brokers: 3), overrides: [:], allowUnreplicated: false)
            .errors.count == 1)
        #expect(KafkaTopicReconciliation(wanted: unreplicated, cluster: Self.cluster(brokers: 3), overrides: [:], allowUnreplicated: true)
            .errors.isEmpty)
        // A topic already made with one replica (the old topics.conf) is an error too.
        let existing = KafkaTopicReconciliation(wanted: Self.wanted, cluster: Self.cluster(brokers: 3, topics: [Self.topic("push.jobs", partitions: 24, replicas: 1)]),
                                                overrides: ["push.jobs": ["min.insync.replicas": "2", "retention.ms": "86400000"]], allowUnreplicated: false)
        #expect(existing.errors.count == 1)
        #expect(existing.changes.isEmpty)
    }

    @Test func addsPartitionsSetsDriftedConfigsKeepsOtherOverridesAndReportsTheRest() {
        let cluster = Self.cluster(brokers: 3, topics: [Self.topic("push.jobs", partitions: 12, replicas: 3, inSync: 2)])
        let plan = KafkaTopicReconciliation(wanted: Self.wanted, cluster: cluster,
                                            overrides: ["push.jobs": ["retention.ms": "3600000", "cleanup.policy": "delete"]], allowUnreplicated: false)
        #expect(plan.changes == [
            .addPartitions(topic: "push.jobs", from: 12, to: 24),
            .setConfigs(topic: "push.jobs", overrides: ["retention.ms": "86400000", "cleanup.policy": "delete", "min.insync.replicas": "2"],
                        changed: ["retention.ms": "86400000", "min.insync.replicas": "2"]),
        ])
        #expect(plan.findings.map(\.isError) == [false])  // under-replicated partitions
        let more = KafkaTopicReconciliation(wanted: Self.wanted, cluster: Self.cluster(brokers: 3, topics: [Self.topic("push.jobs", partitions: 30, replicas: 3)]),
                                            overrides: ["push.jobs": Self.wanted[0].config], allowUnreplicated: false)
        #expect(more.changes.isEmpty)
        #expect(more.findings.count == 1)
    }

    @Test func unreadableConfigsAreAWarningNotAChange() {
        let plan = KafkaTopicReconciliation(wanted: Self.wanted, cluster: Self.cluster(brokers: 3, topics: [Self.topic("push.jobs", partitions: 24, replicas: 3)]),
                                            overrides: nil, allowUnreplicated: false)
        #expect(plan.changes.isEmpty)
        #expect(plan.findings.count == 1)
        #expect(!plan.findings[0].isError)
    }
}
