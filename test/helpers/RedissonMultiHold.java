import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.util.ArrayList;
import java.util.List;

/**
 * One real Redisson 3.52 client holding several RLocks at once, so that its watchdog renews them
 * in one batched script run (Redisson 3.44 and later). Run with Java's source launcher on the
 * redisson-peer's classpath (test/helpers/redisson-peer.ts). One JSON object per line on stdout,
 * in the redisson-peer's format.
 *
 *   java RedissonMultiHold.java PORT WATCHDOG_MS NAME...
 *
 * Locks each NAME in order (lock(): watchdog mode), then holds them all until SIGTERM, when it
 * unlocks each and prints whether the server accepted it.
 */
public class RedissonMultiHold {
    static final long PID = ProcessHandle.current().pid();
    static int port;

    public static void main(String[] argv) throws Exception {
        port = Integer.parseInt(argv[0]);
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.setLockWatchdogTimeout(Long.parseLong(argv[1]));
        config.setNettyThreads(4);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port)
                .setConnectionMinimumIdleSize(1).setConnectionPoolSize(4)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(2);
        RedissonClient client = Redisson.create(config);
        long threadId = Thread.currentThread().getId();
        List<RLock> locks = new ArrayList<>();
        for (int i = 2; i < argv.length; i++) {
            RLock lock = client.getLock(argv[i]);
            lock.lock();
            locks.add(lock);
            emit("acquired", argv[i], ",\"token\":\"" + client.getId() + ":" + threadId + "\",\"watchdog\":true");
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (RLock lock : locks) {
                try {
                    lock.unlockAsync(threadId).toCompletableFuture().get();
                    emit("released", lock.getName(), ",\"ok\":true,\"reason\":\"signal\"");
                } catch (Exception e) {
                    emit("released", lock.getName(), ",\"ok\":false,\"reason\":\"signal\"");
                }
            }
        }));
        Thread.sleep(Long.MAX_VALUE);
    }

    static synchronized void emit(String event, String key, String rest) {
        System.out.println("{\"t\":" + System.currentTimeMillis() + ",\"event\":\"" + event
                + "\",\"lib\":\"redisson-java\",\"kind\":\"lock\",\"key\":\"" + key + "\",\"pid\":" + PID
                + ",\"port\":" + port + rest + "}");
        System.out.flush();
    }
}
