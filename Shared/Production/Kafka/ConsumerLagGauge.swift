import Runtime

/// Publishes consumers' per-partition lag as one gauge every service shares,
/// `kafka_consumer_lag{topic,partition}` (messages the group is behind, from the consumer's fetch statistics;
/// see `KafkaConsumer.partitionLag`). Dashboards, alerts and autoscaling read this one name.
public struct ConsumerLagGauge: Sendable {
    let registry: MetricsRegistry

    public init(registry: MetricsRegistry) {
        self.registry = registry
    }

    /// Sets the gauge from `lag`.
    public func record(_ lag: [KafkaPartitionLag]) {
        for entry in lag {
            registry.gauge("kafka_consumer_lag", help: "Messages the consumer group is behind, per partition",
                           labels: ["topic": entry.topic, "partition": String(entry.partition)])
                .set(Double(entry.lag))
        }
    }

    /// Records the lag of `consumers` every `interval` until the task is cancelled.
    public func run(consumers: [KafkaConsumer], every interval: Duration) async {
        while !Task.isCancelled {
            for consumer in consumers { record(consumer.partitionLag) }
            try? await Task.sleep(for: interval)
        }
    }
}
