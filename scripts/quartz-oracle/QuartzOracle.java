import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.TimeZone;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.quartz.CronExpression;

/**
 * Quartz 2.3.2 as an oracle for the scheduler's cron evaluator (see generate.mjs beside this file).
 *
 * Reads rows "id TAB expression TAB zone TAB startEpochMillis TAB count" on stdin and writes one JSON object per
 * row on stdout:
 * - accepted / error: whether new CronExpression(expression) parses, and Quartz's message when it does not;
 * - quartz: the next `count` fire times (epoch ms) Quartz gives in `zone` after start, or quartzError when its
 *   evaluation throws or does not return within the time limit;
 * - expected: the fire times under our documented DST rule: Quartz's wall-clock fire times (the expression
 *   evaluated in UTC from the start's local time), each mapped into `zone` by java.time's ZoneRules, a local
 *   time that does not exist skipped, a repeated one taken at its first occurrence;
 * - dstAffected: whether one of those wall-clock times fell in a gap or an overlap.
 * The first line is {"meta": ...} with Quartz's MAX_YEAR (the year the JVM started + 100).
 */
public final class QuartzOracle {
    private static final long TIME_LIMIT_MS = 2000;
    private static Thread current;
    private static final int MAX_WALL_CLOCK_TIMES = 20_000;
    private static final TimeZone UTC = TimeZone.getTimeZone("UTC");

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        out.println("{\"meta\":{\"quartzMaxYear\":" + CronExpression.MAX_YEAR + ",\"generatedAt\":"
                + System.currentTimeMillis() + ",\"javaTzdata\":" + json(java.time.zone.ZoneRulesProvider
                .getVersions("UTC").lastKey()) + "}}");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        ExecutorService worker = Executors.newSingleThreadExecutor(QuartzOracle::daemon);
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isEmpty()) continue;
            String[] cols = line.split("\t", -1);
            Future<String> row = worker.submit(() -> evaluate(cols[0], cols[1], cols[2], Long.parseLong(cols[3]),
                    Integer.parseInt(cols[4])));
            try {
                out.println(row.get(TIME_LIMIT_MS, TimeUnit.MILLISECONDS));
            } catch (TimeoutException e) {
                // Quartz loops forever on some expressions: give up on the row and replace the stuck thread.
                worker.shutdownNow();
                stop(current);
                worker = Executors.newSingleThreadExecutor(QuartzOracle::daemon);
                out.println("{\"id\":" + json(cols[0]) + ",\"accepted\":true,\"quartzError\":\"no answer within "
                        + TIME_LIMIT_MS + " ms\"}");
            } catch (ExecutionException e) {
                throw new IllegalStateException("row " + cols[0], e.getCause());
            }
        }
        out.flush();
        System.exit(0);
    }

    private static Thread daemon(Runnable task) {
        Thread thread = new Thread(task);
        thread.setDaemon(true);
        current = thread;
        return thread;
    }

    @SuppressWarnings({"deprecation", "removal"})
    private static void stop(Thread thread) {
        thread.stop(); // the loop inside Quartz never checks for interruption; Java 17 still allows this
    }

    private static String evaluate(String id, String expression, String zone, long start, int count) {
        StringBuilder row = new StringBuilder("{\"id\":").append(json(id));
        CronExpression inZone;
        CronExpression wallClock;
        try {
            inZone = new CronExpression(expression);
            wallClock = new CronExpression(expression);
        } catch (ParseException e) {
            return row.append(",\"accepted\":false,\"error\":").append(json(e.getMessage())).append('}').toString();
        }
        row.append(",\"accepted\":true");
        inZone.setTimeZone(TimeZone.getTimeZone(zone));
        wallClock.setTimeZone(UTC);
        List<Long> quartz = new ArrayList<>();
        try {
            Date cursor = new Date(start);
            while (quartz.size() < count) {
                cursor = inZone.getNextValidTimeAfter(cursor);
                if (cursor == null) break;
                quartz.add(cursor.getTime());
            }
        } catch (RuntimeException e) {
            return row.append(",\"quartzError\":").append(json(e.toString())).append('}').toString();
        }
        row.append(",\"quartz\":").append(quartz);

        ZoneRules rules = ZoneId.of(zone).getRules();
        LocalDateTime startLocal = LocalDateTime.ofInstant(Instant.ofEpochMilli(start), ZoneId.of(zone));
        Date naive = new Date(startLocal.toInstant(ZoneOffset.UTC).toEpochMilli());
        List<Long> expected = new ArrayList<>();
        boolean dstAffected = false;
        for (int i = 0; i < MAX_WALL_CLOCK_TIMES && expected.size() < count; i++) {
            naive = wallClock.getNextValidTimeAfter(naive);
            if (naive == null) break;
            LocalDateTime local = LocalDateTime.ofInstant(naive.toInstant(), ZoneOffset.UTC);
            List<ZoneOffset> offsets = rules.getValidOffsets(local);
            if (offsets.size() != 1) dstAffected = true;
            if (offsets.isEmpty()) continue; // in a gap: skipped
            ZoneOffset offset = offsets.size() == 1 ? offsets.get(0) : rules.getTransition(local).getOffsetBefore();
            long instant = local.toInstant(offset).toEpochMilli();
            if (instant > start) expected.add(instant);
        }
        return row.append(",\"expected\":").append(expected).append(",\"dstAffected\":").append(dstAffected)
                .append('}').toString();
    }

    private static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
}
