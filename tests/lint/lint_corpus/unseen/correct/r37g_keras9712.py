import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((4, 3)), tf.keras.layers.LSTM(5), tf.keras.layers.Dense(2)])
x = tf.random.normal((16, 4, 3))
y = tf.cast(tf.random.uniform((16, 2), maxval=2, dtype=tf.int32), tf.float32)


def getBalance(x_true, x_pred):
    trade_index = tf.not_equal(x_pred[:, 1], 0)
    x_true_tradeable = tf.boolean_mask(x_true[:, 0], trade_index)
    x_pred_tradeable = tf.sigmoid(tf.boolean_mask(x_pred[:, 0], trade_index))
    correctPredictions = tf.reduce_sum(x_true_tradeable * x_pred_tradeable
                                       + (1 - x_true_tradeable) * (1 - x_pred_tradeable))
    TotalTrades = tf.cast(tf.size(x_pred_tradeable), tf.float32)
    return (correctPredictions / TotalTrades) * 100


with tf.GradientTape() as tape:
    loss = getBalance(y, model(x))
result = tape.gradient(loss, model.trainable_variables)
