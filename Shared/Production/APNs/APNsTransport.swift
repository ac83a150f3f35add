/// What a sender needs from APNs: one push (or one broadcast) in, its final outcome out (after at most one extra attempt
/// with a fresh provider token), and a way to close the connections. `APNsClient` is the real one —
/// HTTP/2 over TLS to Apple or to mock-apns; tests can hand apns-sender an in-process fake that
/// answers each push as scripted.
public protocol APNsTransport: Sendable {
    /// Sends `push` and returns what APNs answered (never throws: a transport failure is an outcome).
    func send(_ push: APNsPush) async -> APNsOutcome
    /// Sends every push of `pushes` concurrently; one outcome per push, in their order.
    func send(_ pushes: [APNsPush]) async -> [APNsOutcome]
    /// As `send(_:)`, and reports the answers while the pushes are sent, in groups (`APNsAnswerReport`).
    func send(_ pushes: [APNsPush], answered: APNsAnswerReport?) async -> [APNsOutcome]
    /// Sends one broadcast to a channel's subscribers (never throws).
    func sendBroadcast(_ broadcast: APNsBroadcast) async -> APNsBroadcastOutcome
    /// Closes the connections; pushes sent afterwards fail as transport errors.
    func shutdown()
}

extension APNsClient: APNsTransport {}

extension APNsTransport {
    /// Reports every answer at the end, for transports that cannot report them earlier.
    public func send(_ pushes: [APNsPush], answered: APNsAnswerReport?) async -> [APNsOutcome] {
        let outcomes = await send(pushes)
        answered?.report(Array(outcomes.enumerated()))
        return outcomes
    }

    /// One child task per push, for transports without a batch path of their own (`APNsClient` has one).
    public func send(_ pushes: [APNsPush]) async -> [APNsOutcome] {
        await withTaskGroup(of: (Int, APNsOutcome).self) { group in
            for (index, push) in pushes.enumerated() {
                group.addTask { (index, await send(push)) }
            }
            var outcomes = [APNsOutcome?](repeating: nil, count: pushes.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes.map { $0! }
        }
    }
}

/// Answers reported while a batch of pushes is sent (`APNsTransport.send(_:answered:)`): every `every` answers, and the
/// last ones when the batch completes, as (index in the batch, outcome). A push retried with a fresh provider token is
/// reported again with its second answer. `report` may run on the connection's event-loop thread: it must be quick and
/// must not block.
public struct APNsAnswerReport: Sendable {
    public let every: Int
    public let report: @Sendable ([(Int, APNsOutcome)]) -> Void

    public init(every: Int, report: @escaping @Sendable ([(Int, APNsOutcome)]) -> Void) {
        self.every = max(1, every)
        self.report = report
    }

    /// The same report for a sub-batch whose index i is `indices[i]` of the whole batch.
    func mapping(_ indices: [Int]) -> APNsAnswerReport {
        APNsAnswerReport(every: every) { [report] answers in report(answers.map { (indices[$0.0], $0.1) }) }
    }
}
