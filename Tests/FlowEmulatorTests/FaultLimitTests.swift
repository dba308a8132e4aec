import AsyncHTTPClient
import FlowDescriptor
import FlowEmulator
import FlowEmulatorData
import Foundation
import Glibc
import Testing

@Suite("Faults within limits")
struct FaultLimitTests {
    /// A 1xx status is not a final answer, and 204, 205 and 304 have no body: a fault cannot answer with them.
    @Test(
        "A fault status the emulator cannot answer with is refused in the data file and by the admin API",
        arguments: [100, 101, 199, 204, 304])
    func unanswerableStatus(status: Int) async throws {
        let text = "faults:\n  settings:\n    status: \(status)\n"
        #expect {
            try EmulatorData.read(bytes: Array(text.utf8), file: "data.yaml", format: .yaml)
        } throws: { error in
            "\(error)".contains("data.yaml:3:13") && "\(error)".contains("faults.settings.status` is \(status)")
        }
        try await withEmulator { (emulator, client) async throws in
            let refused = try await client.send("PUT", "/_emulator/faults/settings", body: #"{"status": \#(status)}"#)
            #expect(refused.status == 400)
            #expect(refused.body.contains("status` is \(status)"), "\(refused.body)")
            #expect(emulator.fault(for: .settings) == nil)
        }
    }

    @Test("A delayed request is answered at once when its fault is switched off", .timeLimit(.minutes(15)))
    func delayEndsWhenTheFaultIsRemoved() async throws {
        try await withEmulator { (emulator, client) async throws in
            emulator.setFault(.delay(.seconds(3600)), for: .settings)
            async let answer = client.get(Paths.settings, headers: Paths.appHeader)
            await emulator.waitForArrivals(at: .settings)
            emulator.setFault(nil, for: .settings)
            #expect(try await answer.status == 200)

            emulator.setFault(.delay(.seconds(3600)), for: .me)
            async let again = client.get(Paths.me, headers: Paths.appHeader)
            await emulator.waitForArrivals(at: .me)
            _ = try await client.send("DELETE", "/_emulator/faults")
            #expect(try await again.status == 200)
        }
    }

    @Test(
        "A delayed request whose client has gone lets its connection go before the delay is over",
        .timeLimit(.minutes(15)))
    func delayEndsWhenTheClientGoes() async throws {
        let (logged, sink) = AsyncStream.makeStream(of: RecordedRequest.self)
        let emulator = BackendEmulator { sink.yield($0) }
        let url = try await emulator.start()
        emulator.setFault(.delay(.seconds(3600)), for: .settings)
        var iterator = logged.makeAsyncIterator()
        for round in 0..<3 {
            let socket = try #require(rawConnection(to: url.port!))
            let request = "GET \(Paths.settings) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-SMP-APPID: com.example.travel\r\n\r\n"
            #expect(send(socket, request, request.utf8.count, 0) == request.utf8.count)
            await emulator.waitForArrivals(round + 1, at: .settings)
            close(socket)
            let recorded = await iterator.next()
            #expect(recorded?.status == nil)
            #expect(recorded?.fault?.contains("client gone") == true, "\(String(describing: recorded?.fault))")
        }
        await emulator.stop()
    }
}
