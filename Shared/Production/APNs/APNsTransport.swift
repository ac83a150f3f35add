/// What a sender needs from APNs: one push (or one broadcast) in, its final outcome out (after at most one extra attempt
/// with a fresh provider token), and a way to close the connections. `APNsClient` is the real one —
/// HTTP/2 over TLS to Apple or to mock-apns; tests can hand apns-sender an in-process fake that
/// answers each push as scripted.
public protocol APNsTransport: Sendable {
    /// Sends `push` and returns what APNs answered (never throws: a transport failure is an outcome).
    func send(_ push: APNsPush) async -> APNsOutcome
    /// Sends every push of `pushes` concurrently; one outcome per push, in their order.
    func send(_ pushes: [APNsPush]) async -> [APNsOutcome]
    /// Sends one broadcast to a channel's subscribers (never throws).
    func sendBroadcast(_ broadcast: APNsBroadcast) async -> APNsBroadcastOutcome
    /// Closes the connections; pushes sent afterwards fail as transport errors.
    func shutdown()
}

extension APNsClient: APNsTransport {}

extension APNsTransport {
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
