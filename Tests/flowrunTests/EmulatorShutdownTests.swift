import FlowProcess
import Foundation
import Glibc
import Synchronization
import Testing

extension ProcessSuites {
    @Suite("The emulator stops cleanly under load")
    struct EmulatorShutdownTests {
        /// Connections accepted while the server shuts down must not end it with a crash: five runs, each with
        /// clients connecting in a loop when the signal comes, so that a failure of most tries cannot pass.
        @Test(.activeTimeLimit(.seconds(300)), arguments: [SIGTERM, SIGINT])
        func theEmulatorExitsZeroOnASignalWhileClientsKeepConnecting(signal: Int32) async throws {
            for round in 0..<5 {
                let emulator = try startFlowrun(["emulator"], in: CommandRunner.root)
                let line = await emulator.output.firstLine()
                let portText = line.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                let port = try #require(Int(portText), "round \(round): \(line)")
                let clients = ConnectingClients(port: port, count: 4)
                // The signal comes once the clients are under way: some connections have been answered.
                await clients.waitForConnections(20)
                emulator.signal(signal)
                let exit = await emulator.exit()
                await clients.stop()
                let errors = await emulator.errors.all()
                #expect(exit == .exited(0), "round \(round): \(exit); \(errors.suffix(2000))")
            }
        }
    }
}

/// Threads that connect to 127.0.0.1:`port` in a loop, each sending a request and closing, until stopped.
final class ConnectingClients: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let connections = Atomic<Int>(0)
    private let finished = Mutex<Int>(0)
    private let count: Int

    init(port: Int, count: Int) {
        self.count = count
        for _ in 0..<count {
            Thread.detachNewThread { [self] in
                let request = Array("GET /_emulator/faults HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
                while !stopped.load(ordering: .relaxed) {
                    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                    // A guard only: an answer, or the server's end, comes long before.
                    var guardTime = timeval(tv_sec: 30, tv_usec: 0)
                    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &guardTime, socklen_t(MemoryLayout<timeval>.size))
                    var address = sockaddr_in()
                    address.sin_family = sa_family_t(AF_INET)
                    address.sin_port = in_port_t(UInt16(port).bigEndian)
                    address.sin_addr.s_addr = inet_addr("127.0.0.1")
                    let connected = withUnsafePointer(to: &address) { pointer in
                        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                    if connected == 0 {
                        _ = send(socket, request, request.count, Int32(MSG_NOSIGNAL))
                        var byte: UInt8 = 0
                        _ = recv(socket, &byte, 1, 0)
                        connections.wrappingAdd(1, ordering: .relaxed)
                    }
                    close(socket)
                }
                finished.withLock { $0 += 1 }
            }
        }
    }

    /// Waits until `count` connections have been answered (or refused), however long that takes.
    func waitForConnections(_ wanted: Int) async {
        while connections.load(ordering: .relaxed) < wanted {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Stops the loops and waits for the threads to end, without holding a thread of the shared pool.
    func stop() async {
        stopped.store(true, ordering: .relaxed)
        while finished.withLock({ $0 }) < count {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
