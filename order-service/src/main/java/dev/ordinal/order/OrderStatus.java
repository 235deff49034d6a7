package dev.ordinal.order;

/** The states of an order; transitions are guarded in SQL ({@code WHERE status = ...}). */
public enum OrderStatus {
  PLACED,
  CANCELLED,
  SHIPPED
}
