import Kafka
import Postgres
import Runtime

/// Runs `FeedPoller.pollOnce` every `interval`; after a failure it counts the error
/// (`poller_errors_total{kind}`), waits the 429's `Retry-After` when given, otherwise an exponential
/// backoff with jitter, and carries on. Ends when cancelled.
struct PollLoop: Sendable {
    let poller: FeedPoller
    let interval: Duration
    let backoff: Backoff
    let sleeper: any Sleeper
    /// A draw in [0, 1) for the jitter.
    let random: @Sendable () -> Double
    let metrics: PollerMetrics
    let logger: Logger

    func run() async {
        var failures = 0
        while !Task.isCancelled {
            let wait: Duration
            do {
                _ = try await poller.pollOnce()
                failures = 0
                wait = interval
            } catch is CancellationError {
                return
            } catch {
                failures += 1
                let request = error as? FeedRequestError
                metrics.error(Self.kind(of: error))
                if let seconds = request?.retryAfter {
                    wait = .seconds(min(max(seconds, 0), 3600))
                } else {
                    wait = backoff.delay(afterFailures: failures, random: random())
                }
                logger.warning("poll failed; backing off", [
                    "error": String(describing: error), "failures": String(failures), "wait_ms": String(wait.wholeMilliseconds),
                ])
            }
            do { try await sleeper.sleep(for: wait) } catch { return }
        }
    }
}

extension PollLoop {
    /// The `poller_errors_total` label of a failed poll.
    static func kind(of error: any Error) -> String {
        switch error {
        case let request as FeedRequestError: request.kind
        case is KafkaError: "publish"
        case is PostgresError: "database"
        default: "internal"
        }
    }
}
