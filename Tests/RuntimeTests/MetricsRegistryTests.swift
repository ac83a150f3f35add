import Testing
@testable import Runtime

@Suite struct MetricsRegistryTests {
    @Test func countersGaugesAndHistogramsRenderInPrometheusText() throws {
        let registry = MetricsRegistry()
        registry.counter("pushes_total", help: "Pushes sent.", labels: ["reason": "Success"]).increment(by: 3)
        registry.counter("pushes_total", help: "Pushes sent.", labels: ["reason": "Unregistered"]).increment()
        registry.gauge("inflight_streams", help: "Streams in flight.").set(7)
        let histogram = registry.histogram("send_seconds", help: "Send latency.", buckets: [0.01, 0.1])
        histogram.observe(0.005)
        histogram.observe(0.05)
        histogram.observe(2)

        let text = registry.render()
        #expect(text.contains("# TYPE pushes_total counter\n"))
        #expect(text.contains("pushes_total{reason=\"Success\"} 3\n"))
        #expect(text.contains("pushes_total{reason=\"Unregistered\"} 1\n"))
        #expect(text.contains("inflight_streams 7\n"))
        #expect(text.contains("send_seconds_bucket{le=\"0.01\"} 1\n"))
        #expect(text.contains("send_seconds_bucket{le=\"0.1\"} 2\n"))
        #expect(text.contains("send_seconds_bucket{le=\"+Inf\"} 3\n"))
        #expect(text.contains("send_seconds_count 3\n"))
        #expect(text.contains("send_seconds_sum 2.055\n"))
    }

    @Test func sameNameAndLabelsGiveTheSameInstrument() throws {
        let registry = MetricsRegistry()
        registry.counter("x_total", help: "x", labels: ["a": "1"]).increment()
        registry.counter("x_total", help: "x", labels: ["a": "1"]).increment()
        #expect(registry.counter("x_total", help: "x", labels: ["a": "1"]).count == 2)
    }

    @Test func labelValuesAreEscaped() throws {
        let registry = MetricsRegistry()
        registry.counter("e_total", help: "e", labels: ["v": "a\"b\\c\nd"]).increment()
        #expect(registry.render().contains(#"e_total{v="a\"b\\c\nd"} 1"#))
    }

    @Test func concurrentIncrementsAreNotLost() async {
        let counter = MetricsRegistry().counter("c_total", help: "c")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<10_000 { counter.increment() } } }
        }
        #expect(counter.count == 80_000)
    }

    @Test("a histogram's quantiles from its rendered buckets, summed over series, as histogram_quantile estimates them")
    func quantilesFromRenderedBuckets() {
        let registry = MetricsRegistry()
        let a = registry.histogram("fresh_seconds", help: "h", labels: ["priority": "10"], buckets: [1, 2, 5])
        let b = registry.histogram("fresh_seconds", help: "h", labels: ["priority": "5"], buckets: [1, 2, 5])
        a.observe(0.5, times: 50)
        b.observe(1.5, times: 40)
        b.observe(4, times: 9)
        b.observe(60)
        let text = registry.render()
        #expect(PrometheusText.quantile(0.5, text, histogram: "fresh_seconds") == 1.0, "rank 50 of 100: the top of the first bucket")
        #expect(PrometheusText.quantile(0.7, text, histogram: "fresh_seconds") == 1.5, "rank 70: halfway through (1, 2]")
        #expect(PrometheusText.quantile(0.999, text, histogram: "fresh_seconds") == 5, "in +Inf: the highest finite bound")
        #expect(PrometheusText.quantile(0.5, text, histogram: "fresh_seconds", matching: ["priority": "5"]) == 1.625)
        #expect(PrometheusText.quantile(0.5, text, histogram: "other_seconds") == nil)
        #expect(PrometheusText.sum(text, metric: "fresh_seconds_count") == 100)
    }
}
