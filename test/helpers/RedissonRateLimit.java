import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Real Redisson 3.52 clients using one RRateLimiter, for inspect and trace tests. Run with Java's
 * source launcher on the redisson-peer's classpath (test/helpers/redisson-peer.ts). One JSON
 * object per line on stdout, in the redisson-peer's format.
 *
 *   java RedissonRateLimit.java PORT NAME OVERALL|PER_CLIENT RATE INTERVAL_MS KEEPALIVE_MS STEP...
 *
 * The first client sets the rate (setRate). Each STEP is CLIENT:PERMITS, one tryAcquire(PERMITS)
 * by client number CLIENT (0, 1, ...: each a Redisson client of its own, so its own client id),
 * printed as "acquired" or "failed". Ends with "done" and every client's id, then shuts down.
 */
public class RedissonRateLimit {
    static final long PID = ProcessHandle.current().pid();
    static int port;
    static String name;

    public static void main(String[] argv) throws Exception {
        port = Integer.parseInt(argv[0]);
        name = argv[1];
        RateType type = RateType.valueOf(argv[2]);
        long rate = Long.parseLong(argv[3]);
        Duration interval = Duration.ofMillis(Long.parseLong(argv[4]));
        Duration keepAlive = Duration.ofMillis(Long.parseLong(argv[5]));
        List<RedissonClient> clients = new ArrayList<>();
        clients.add(client());
        clients.get(0).getRateLimiter(name).setRate(type, rate, interval, keepAlive);
        emit("rate-set", ",\"client\":\"" + clients.get(0).getId() + "\"");
        for (int i = 6; i < argv.length; i++) {
            String[] step = argv[i].split(":");
            int which = Integer.parseInt(step[0]);
            long permits = Long.parseLong(step[1]);
            while (clients.size() <= which) clients.add(client());
            RRateLimiter limiter = clients.get(which).getRateLimiter(name);
            boolean ok = limiter.tryAcquire(permits);
            emit(ok ? "acquired" : "failed", ",\"client\":\"" + clients.get(which).getId() + "\",\"permits\":" + permits);
        }
        StringBuilder ids = new StringBuilder();
        for (RedissonClient c : clients) ids.append(ids.length() == 0 ? "" : ",").append('"').append(c.getId()).append('"');
        emit("done", ",\"clients\":[" + ids + "]");
        for (RedissonClient c : clients) c.shutdown();
    }

    static RedissonClient client() {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.setNettyThreads(2);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port)
                .setConnectionMinimumIdleSize(1).setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(0).setSubscriptionConnectionPoolSize(1);
        return Redisson.create(config);
    }

    static synchronized void emit(String event, String rest) {
        System.out.println("{\"t\":" + System.currentTimeMillis() + ",\"event\":\"" + event
                + "\",\"lib\":\"redisson-java\",\"kind\":\"ratelimiter\",\"key\":\"" + name + "\",\"pid\":" + PID
                + ",\"port\":" + port + rest + "}");
        System.out.flush();
    }
}
