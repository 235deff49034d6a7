package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WalByRelationTest {

  @Test
  void perOperationDividesEachRelationsBytesAndSumsTheRestAsOther() {
    Map<String, Long> bytes = new LinkedHashMap<>();
    bytes.put("invoice", 2_310L);
    bytes.put("inbox_pkey", 1_340L);
    bytes.put("(Transaction)", 400L);
    bytes.put("payment", 171L);
    bytes.put("inbox_position", 9L);

    assertThat(WalByRelation.perOperation(bytes, 10, 3))
        .isEqualTo("invoice 231, inbox_pkey 134, (Transaction) 40, other 18");
    assertThat(WalByRelation.perOperation(bytes, 10, 5))
        .isEqualTo("invoice 231, inbox_pkey 134, (Transaction) 40, payment 17, inbox_position 1");
  }
}
