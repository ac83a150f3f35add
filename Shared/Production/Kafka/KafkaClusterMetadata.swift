/// The cluster as its metadata describes it: brokers, and topics with their partitions' replication.
public struct KafkaClusterMetadata: Sendable, Equatable {
    public struct Broker: Sendable, Equatable {
        public let id: Int32
        public let host: String
        public let port: Int32

        public init(id: Int32, host: String, port: Int32) {
            self.id = id
            self.host = host
            self.port = port
        }
    }

    public struct Partition: Sendable, Equatable {
        public let id: Int32
        /// Replicas assigned to the partition.
        public let replicas: Int
        /// Replicas in sync with the leader.
        public let inSync: Int

        public init(id: Int32, replicas: Int, inSync: Int) {
            self.id = id
            self.replicas = replicas
            self.inSync = inSync
        }
    }

    public struct Topic: Sendable, Equatable {
        public let name: String
        public let partitions: [Partition]
        /// The smallest replica count of its partitions (0 when it has none).
        public var replicationFactor: Int { partitions.map(\.replicas).min() ?? 0 }

        public init(name: String, partitions: [Partition]) {
            self.name = name
            self.partitions = partitions
        }
    }

    public let brokers: [Broker]
    public let topics: [Topic]

    public init(brokers: [Broker], topics: [Topic]) {
        self.brokers = brokers
        self.topics = topics
    }

    public func topic(_ name: String) -> Topic? { topics.first { $0.name == name } }
}
