import HTTP2
import Runtime

extension APNsClient {
    /// Sends one broadcast to its channel's subscribers over the environment's push pool (the same hosts and
    /// connections as device pushes) and returns its outcome (never throws). One attempt, plus one with a new
    /// provider token after ExpiredProviderToken; retrying a `.retry` is the caller's.
    public func sendBroadcast(_ broadcast: APNsBroadcast) async -> APNsBroadcastOutcome {
        let started = ContinuousClock.now
        let http = broadcast.environment == .production ? production : sandbox
        let answer = await APNsExchange(tokens: tokens, logger: logger).send(over: http) { authorization in
            requests.broadcastRequest(broadcast, authorization: authorization)
        }
        var outcome: APNsBroadcastOutcome
        switch answer {
        case .response(let response, let reason, let attempts):
            outcome = APNsBroadcastOutcome(
                action: APNsAction.classify(status: response.status, reason: reason), status: response.status, reason: reason,
                requestID: broadcast.requestID, uniqueID: response.header("apns-unique-id"), attempts: attempts)
        case .transport(let error, let attempts):
            outcome = APNsBroadcastOutcome(
                action: error.isRetryable ? .retry : .permanentFailure, status: nil, reason: nil, requestID: broadcast.requestID,
                attempts: attempts, transportError: error.description)
        case .noToken(let error):
            outcome = APNsBroadcastOutcome(
                action: .permanentFailure, status: nil, reason: nil, requestID: broadcast.requestID, attempts: 0,
                transportError: error.description)
        }
        outcome.latency = ContinuousClock.now - started
        if let metrics {
            metrics.histogram("apns_broadcast_seconds", help: "Time from first attempt to APNs's answer to a broadcast").observe(outcome.latency)
            metrics.counter("apns_broadcasts_total", help: "Broadcasts by action and APNs reason", labels: [
                "env": broadcast.environment.rawValue, "action": outcome.action.rawValue,
                "reason": outcome.reason?.rawValue ?? (outcome.status == 200 ? "" : "none"),
            ]).increment()
        }
        return outcome
    }
}
